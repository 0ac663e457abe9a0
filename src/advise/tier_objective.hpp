#pragma once
// What a CPU tier size is judged by (`size --objective`): output throughput, TTFT p99, or
// goodput (requests meeting --slo-ttft / --slo-tpot per second), and the gain of a curve point
// over the point without a tier.
#include <string>
#include <vector>

#include "size/tier_recommendation.hpp"

namespace kvb {

// TierObjective and the thresholds that pay (kPaysGain, kBalancedTtftGain, kBalancedMaxLoss) are
// the recommendation's data: size/tier_recommendation.hpp.

// A curve judged by an objective: the metric that decides (balanced: the one that moved most
// against its own threshold, among sizes that keep the other within 2%), its gains at every size,
// the gains the knee is taken on (a size that breaks balanced's 2% rule can never be the knee),
// and the gain that pays.
struct JudgedCurve {
  TierObjective metric = TierObjective::kThroughput;
  std::vector<double> gains;
  std::vector<double> knee_gains;
  std::vector<double> spreads;  // half the range of the draws' gains (0 for one draw)
  double pays_gain = kPaysGain;
};
// A size whose gain does not exceed its spread over the draws is not taken as the knee (noise).
JudgedCurve judge_curve(const std::vector<TierCurvePoint>& curve, TierObjective o);

// Gains of every point over `curve[0]` (the point without a tier), larger is better:
// throughput and goodput as a ratio - 1, TTFT p99 as the share cut. A goodput of zero without a
// tier has no ratio: gains are then the share of the best goodput reached.
std::vector<double> objective_gains(const std::vector<TierCurvePoint>& curve, TierObjective o);

}  // namespace kvb
