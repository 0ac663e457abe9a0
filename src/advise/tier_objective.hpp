#pragma once
// What a CPU tier size is judged by (`size --objective`): output throughput, TTFT p99, or
// goodput (requests meeting --slo-ttft / --slo-tpot per second), and the gain of a curve point
// over the point without a tier.
#include <string>
#include <vector>

#include "size/tier_recommendation.hpp"

namespace kvb {

enum class TierObjective { kThroughput, kTtftP99, kGoodput };

std::string to_string(TierObjective o);
// UsageError naming `what` and the accepted values.
TierObjective parse_tier_objective(const std::string& text, const std::string& what);

// Gains of every point over `curve[0]` (the point without a tier), larger is better:
// throughput and goodput as a ratio - 1, TTFT p99 as the share cut. A goodput of zero without a
// tier has no ratio: gains are then the share of the best goodput reached.
std::vector<double> objective_gains(const std::vector<TierCurvePoint>& curve, TierObjective o);

// "+12.0% output tok/s", "-35.1% TTFT p99", "+8.0% goodput": a gain in the objective's words.
std::string describe_gain(double gain, TierObjective o);

}  // namespace kvb
