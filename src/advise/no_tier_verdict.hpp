#pragma once
// Why no CPU tier size pays on a simulated curve, as a verdict (size/tier_advice_facts.hpp):
// the tier costs throughput, nothing is reused, the reuse fits the GPU, balanced's trade-off,
// arrival-bound, link-bound or compute-bound.
#include <vector>

#include "size/tier_advice_facts.hpp"
#include "size/tier_recommendation.hpp"

namespace kvb {

// `curve[0]` is the point without a tier; `objective` as the operator gave it.
TierVerdict why_it_does_not_pay(const std::vector<TierCurvePoint>& curve, TierObjective objective);

}  // namespace kvb
