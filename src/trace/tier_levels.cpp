#include "trace/tier_levels.hpp"

#include <algorithm>

namespace kvb {

TierShares tier_shares(const HitCurve& hits, const TierLevels& levels, std::int64_t cpu_blocks) {
  // Inclusive tiers: each serves the distances between the largest tier in front of it and itself.
  const std::int64_t gpu = std::max<std::int64_t>(levels.gpu_blocks, 0);
  const std::int64_t cpu = std::max(gpu, cpu_blocks);
  const double gpu_rate = hits.hit_rate_at(gpu);
  const double cpu_rate = hits.hit_rate_at(cpu);
  const double all_rate = levels.secondary_blocks ? hits.hit_rate_at(std::max(cpu, *levels.secondary_blocks))
                                                  : hits.unbounded_hit_rate();
  return {cpu_blocks, gpu_rate, cpu_rate - gpu_rate, all_rate - cpu_rate};
}

TwoLevelCurve two_level_curve(const HitCurve& hits, const TierLevels& levels,
                              const std::vector<MissRatioPoint>& capacities) {
  TwoLevelCurve out{levels, {}};
  for (const auto& p : capacities) {
    if (p.blocks > levels.gpu_blocks) out.points.push_back(tier_shares(hits, levels, p.blocks));
  }
  return out;
}

}  // namespace kvb
