#pragma once
// One measured storage case as every printer and reader sees it: the case, where it ran, each
// pass's seconds, and the verification of every chunk read back. GB/s are decimal.
#include <string>
#include <vector>

#include "dma/statistics.hpp"
#include "storage/storage_case.hpp"

namespace kvb {

// Bandwidth figures of one direction from its per-pass seconds (faster is a shorter time: the
// 10th percentile of bandwidth is the 90th of time).
struct PassFigures {
  std::vector<double> samples_s;  // seconds per pass over every chunk
  double median_gbps = 0, p10_gbps = 0, p90_gbps = 0;
  double relative_noise = 0;
};
PassFigures pass_figures(std::vector<double> samples_s, double bytes);

// How the page cache was kept out of the read figures.
enum class CacheBypass { kDirectIo, kFadviseDontneed };
std::string to_string(CacheBypass b);
CacheBypass parse_cache_bypass(const std::string& text, const std::string& what);

struct StorageRecord {
  StorageCase tcase;
  std::string dir, fs_type, hostname;
  bool waived = false;
  std::string waive_reason;
  bool buffer_locked = false;
  std::string buffer_lock_refusal;  // why the host buffer is not page-locked
  CacheBypass cache = CacheBypass::kFadviseDontneed;
  double bytes_per_pass = 0;  // chunks x chunk size, each direction
  PassFigures write, read;
  bool verified = false;
  std::string verify_detail;  // the first mismatch, when not verified
};

// CheckFailed (exit 1) naming the first case that read back wrong data; called after the output
// is written, so the failure is shown before the run fails.
void require_verified(const std::vector<StorageRecord>& records);

}  // namespace kvb
