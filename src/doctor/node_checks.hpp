#pragma once
// `kvbench doctor`'s checks: is this node ready for a CPU KV tier of a given size? Each check
// gives pass, warn, fail or skip with the figure, the threshold and where the threshold comes from.
#include <optional>
#include <string>
#include <vector>

#include "doctor/node_facts.hpp"

namespace kvb {

enum class CheckStatus { kPass, kWarn, kFail, kSkip };
std::string to_string(CheckStatus s);

struct CheckResult {
  std::string name;      // link, numa, pinning, shm, memlock, memory, hugepages, iommu, virtualization, driver
  CheckStatus status = CheckStatus::kSkip;
  std::string detail;    // one line an operator acts on
  std::optional<double> value;
  std::optional<double> threshold;
  std::string unit;      // "bytes", "GB/s", "s", ""
  std::string source;    // where the threshold comes from
};

// A measurement the caller made (doctor's pinning test), folded into the checks.
struct PinningMeasurement {
  std::string how;       // "mmap + first touch + mlock (host)"
  double bytes = 0;
  double seconds = 0;
  std::string error;     // non-empty: it could not pin (the reason)
};

struct DoctorRequest {
  double tier_bytes = 0;                  // --tier-size
  std::optional<PinningMeasurement> pinning;
  std::string gpu_skip_reason;            // non-empty: no GPU opened, GPU measurements skipped
};

std::vector<CheckResult> run_node_checks(const NodeFacts& facts, const DoctorRequest& request);

}  // namespace kvb
