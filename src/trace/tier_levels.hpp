#pragma once
// The two-level miss-ratio curve: of the prompt tokens, the share a GPU pool, a CPU tier behind it
// and a secondary tier behind that would serve, read off the one pass's exact curve (HitCurve).
// vLLM's tiering is inclusive under LRU: the CPU tier is written through from the GPU pool and the
// secondary from the CPU tier, and a hit further down is promoted through every tier in front, so
// each tier holds the most recently used blocks that fit it, and a block at effective distance d
// is served by the GPU when d <= G, the CPU tier when G < d <= max(G, C), the secondary tier when
// max(G, C) < d <= max(G, C, S): a tier no larger than the one in front only mirrors it. Where
// vLLM departs from one LRU stack is in docs/trace.md ("Two levels").
#include <cstdint>
#include <optional>
#include <vector>

#include "trace/miss_ratio.hpp"

namespace kvb {

// The tiers in blocks of the trace's block_tokens.
struct TierLevels {
  std::int64_t gpu_blocks = 0;
  std::optional<std::int64_t> secondary_blocks;  // none: unbounded (vLLM's file-system tier has no bound)
};

// One CPU-tier size: the share of all prompt tokens each tier serves.
struct TierShares {
  std::int64_t cpu_blocks = 0;
  double gpu = 0, cpu = 0, secondary = 0;
  double total() const { return gpu + cpu + secondary; }
};

struct TwoLevelCurve {
  TierLevels levels;
  std::vector<TierShares> points;  // ascending CPU-tier sizes, each larger than the GPU pool
};

TierShares tier_shares(const HitCurve& hits, const TierLevels& levels, std::int64_t cpu_blocks);
// The shares at each of `capacities` larger than the GPU pool (a CPU tier no larger only mirrors it).
TwoLevelCurve two_level_curve(const HitCurve& hits, const TierLevels& levels,
                              const std::vector<MissRatioPoint>& capacities);

}  // namespace kvb
