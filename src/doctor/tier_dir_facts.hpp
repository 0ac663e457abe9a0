#pragma once
// A secondary KV tier's directory as doctor checks it (--tier-dir): the directory's facts from
// storage's probe, the size the tier is meant to take, and an optional short measured rate.
#include <optional>
#include <string>

#include "storage/storage_dir.hpp"

namespace kvb {

// One small storage case run in the directory (storage's engine: every chunk verified).
struct TierDirRate {
  std::string how;                       // the case: "per-rank-file/direct/threads/4 MiB/t4/qd1"
  double bytes = 0;                      // per pass
  std::string waived;                    // why it did not run, or the first chunk that read back wrong
  double write_gbps = 0, read_gbps = 0;  // medians, decimal GB/s
};

struct TierDirRequest {
  StorageDirFacts dir;
  std::optional<double> size_bytes;  // --tier-dir-size
  std::optional<TierDirRate> rate;   // --tier-dir-rate
  std::optional<double> needs_gbps;  // --tier-dir-needs-gbps: each direction must reach it
};

}  // namespace kvb
