#pragma once
// Is reloading a request's KV from the CPU tier faster than recomputing its prefill?
// Reload: each rank moves its own blocks over its own host link, in parallel with the others:
//   t = blocks x (t0 + block bytes / link bandwidth), t0 the per-copy cost of the DMA fit.
// Recompute: a roofline over the hardware table, the larger of
//   FLOPs(L) / (TP x peak x efficiency), FLOPs(L) = 2 x active params x L + causal attention, and
//   the time to read the rank's weights once from HBM (a prefill is at least one forward pass).
#include <cstdint>

#include "perf/link_curve.hpp"
#include "size/sizing.hpp"

namespace kvb {

struct RecomputeModel {
  double linear_flops_per_token = 0;   // 2 x active params, plus windowed attention
  double quadratic_flops = 0;          // coefficient of L^2 (full-attention layers)
  double flops_per_second = 0;         // TP x peak x efficiency
  double weight_read_seconds = 0;      // one pass over the rank's weights at HBM bandwidth
  double seconds(std::int64_t tokens) const;
};

struct ReloadModel {
  std::int64_t block_size = 16;
  double block_bytes = 0;              // one block, all layers, one rank
  double link_bytes_per_second = 0;
  double per_copy_seconds = kDefaultPerCopySeconds;
  double seconds(std::int64_t tokens) const;
};

RecomputeModel recompute_model(const ModelSpec& m, const HardwareSpec& hw, int tp, int pp,
                               const std::string& weight_dtype, double efficiency);

// `link_gbps` per direction per rank and the per-copy cost; `link_source` says where they came from.
ReloadVsRecompute compare_reload_recompute(const Sizing& s, const SizingInputs& in, double link_gbps,
                                           const std::string& link_source,
                                           double per_copy_seconds = kDefaultPerCopySeconds);

}  // namespace kvb
