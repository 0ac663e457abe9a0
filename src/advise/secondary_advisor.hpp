#pragma once
// size --workload/--trace --secondary-tier-size: whether a secondary tier pays behind the CPU tier
// the tier advisor recommended. That CPU tier is simulated again with the secondary behind it at a
// small ladder of capacities up to the stated size, on the same draws (advise/tier_curve), and
// judged against the CPU tier alone by the CPU tier's own rule (advise/tier_objective: the
// objective's threshold, the draws' spread, the simulation's stated error).
#include <cstdint>
#include <optional>
#include <vector>

#include "advise/tier_curve.hpp"
#include "perf/calibration.hpp"
#include "sim/secondary_tier.hpp"
#include "size/secondary_tier_advice.hpp"
#include "size/tier_recommendation.hpp"

namespace kvb {

// What the advice needs beyond the curve: the tier as stated, and a max-model-len prefix's reload
// and recompute times (size's ReloadVsRecompute) for the disk-against-recompute comparison.
struct SecondaryAdviceRequest {
  SecondaryTierFigures figures;  // rates, latency and policy; `blocks` is set per ladder size
  double stated_gib = 0;
  std::int64_t prefix_tokens = 0;
  int block_size = 16;
  double reload_s = 0, recompute_s = 0;
};

// The capacities simulated: a quarter, half and all of the stated size, whole GiB (at least 1),
// ascending, without repeats; the stated size itself last. A quarter or half no larger than the
// CPU tier in front is left out: written through from it, such a tier only mirrors part of it.
std::vector<double> secondary_ladder(double stated_gib, double cpu_gib = 0);

// The rule, on simulated figures: `cpu_alone` is the CPU tier without a secondary, `runs[i]` the
// same with `ladder[i]` GiB behind it. Pays at the smallest ladder size reaching 95% of the best
// gain where that gain pays by `objective`'s rule (judge_curve, with `expected`'s stated error) and
// came with secondary-tier hits; else the verdict says why not.
SecondaryTierAdvice judge_secondary_tier(const SecondaryAdviceRequest& req, const std::vector<double>& ladder,
                                         double cpu_gib, double cpu_block_bytes, TierObjective objective,
                                         const ExpectedError* expected, const TierCurvePoint& cpu_alone,
                                         const std::vector<SecondaryRun>& runs);

// Simulates the ladder behind `rec`'s CPU tier on `sim`'s draws and judges it; no CPU tier
// recommended: no secondary (kNoCpuTier), nothing simulated. A signal: kInterrupted.
SecondaryTierAdvice advise_secondary_tier(TierCurve& sim, const TierRecommendation& rec,
                                          const SecondaryAdviceRequest& req, TierObjective objective);

}  // namespace kvb
