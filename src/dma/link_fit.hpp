#pragma once
// The per-copy cost and bandwidth of a host link, fitted from a `kvbench dma` sweep: each block
// copy takes t = t0 + bytes / B (the vLLM blog's model; t0 is the submission and DMA set-up
// cost, B the streaming rate). Weighted least squares on relative error, so 4 KiB copies of
// microseconds count as much as 16 MiB copies of milliseconds.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

struct CopyCostFit {
  double per_copy_s = 0;
  double gbps = 0;  // B, 10^9 bytes per second
  std::size_t points = 0;
  double max_relative_error = 0;  // of the fitted per-copy time over the points
  double seconds(double bytes) const { return per_copy_s + bytes / (gbps * 1e9); }
};

// Points are (block bytes, seconds per block copy); needs two distinct sizes (UsageError otherwise).
CopyCostFit fit_copy_cost(const std::vector<std::pair<double, double>>& points);

// The fit of one method and direction from a sweep's verified, contiguous, one-way records of
// the first device (no compute load). UsageError naming `origin` when fewer than two sizes remain.
CopyCostFit fit_copy_cost(const std::vector<DmaRecord>& records, Method method, Direction direction,
                          const std::string& origin);

}  // namespace kvb
