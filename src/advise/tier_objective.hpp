#pragma once
// What a CPU tier size is judged by (`size --objective`): output throughput, TTFT p99, or
// goodput (requests meeting --slo-ttft / --slo-tpot per second), and the gain of a curve point
// over the point without a tier.
#include <optional>
#include <string>
#include <vector>

#include "perf/calibration.hpp"
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
  // The simulation's stated error for `metric` on this server's class (judged with one), or none
  // where the class was never scored: a gain then cannot be told from the model's error.
  std::optional<double> model_error;
  bool unscored = false;
};
// A size whose gain does not exceed its spread over the draws is not taken as the knee (noise);
// given the server's expected error, neither is one whose gain less that spread does not exceed
// the error the output states for that class (an answer smaller than its own error is no answer).
JudgedCurve judge_curve(const std::vector<TierCurvePoint>& curve, TierObjective o,
                        const ExpectedError* expected = nullptr);

// The stated error for the metric a gain is judged on: the TTFT mean's for TTFT p99, the E2E mean's
// (which sets output throughput and goodput) otherwise; none where the server's class was not scored.
std::optional<double> stated_error(const ExpectedError& e, TierObjective metric);

// Gains of every point over `curve[0]` (the point without a tier), larger is better:
// throughput and goodput as a ratio - 1, TTFT p99 as the share cut. A goodput of zero without a
// tier has no ratio: gains are then the share of the best goodput reached.
std::vector<double> objective_gains(const std::vector<TierCurvePoint>& curve, TierObjective o);

}  // namespace kvb
