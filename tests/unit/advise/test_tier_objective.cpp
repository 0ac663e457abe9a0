// The balanced objective's rules (size's default) on curves written by hand: each rule has a case
// that passes it and one that fails it, and the deciding metric is the one that moved most.
#include <gtest/gtest.h>

#include "advise/knee.hpp"
#include "advise/tier_objective.hpp"

namespace kvb {
namespace {

// A curve of (size GiB, output tok/s, TTFT p99 s), the first point without a tier.
std::vector<TierCurvePoint> curve(std::initializer_list<std::tuple<double, double, double>> points) {
  std::vector<TierCurvePoint> out;
  for (const auto& [gib, tput, ttft] : points) {
    TierCurvePoint p;
    p.kv_offloading_size_gib = gib;
    p.output_tokens_per_s = tput;
    p.ttft_p99_s = ttft;
    out.push_back(p);
  }
  return out;
}

bool pays(const JudgedCurve& j) { return find_knee(j.knee_gains, 0.95, j.pays_gain).has_value(); }

TEST(BalancedObjective, ATenPercentTtftCutPaysAtFlatThroughput) {
  const auto j =
      judge_curve(curve({{0, 100, 1.0}, {20, 100, 0.85}, {40, 100.5, 0.60}}), TierObjective::kBalanced);
  EXPECT_EQ(j.metric, TierObjective::kTtftP99);
  EXPECT_NEAR(j.gains[2], 0.40, 1e-12);  // 1 - 0.60 / 1.0
  EXPECT_DOUBLE_EQ(j.pays_gain, kBalancedTtftGain);
  const auto knee = find_knee(j.knee_gains, 0.95, j.pays_gain);
  ASSERT_TRUE(knee);
  EXPECT_EQ(knee->index, 2u);
}

TEST(BalancedObjective, ANinePercentTtftCutAloneDoesNotPay) {
  // -9% TTFT p99 and +1% tok/s: under both thresholds.
  EXPECT_FALSE(pays(judge_curve(curve({{0, 100, 1.0}, {20, 101, 0.91}}), TierObjective::kBalanced)));
  // The same -9% under --objective ttft-p99 (2% pays) does pay: the rules differ by objective.
  EXPECT_TRUE(pays(judge_curve(curve({{0, 100, 1.0}, {20, 101, 0.91}}), TierObjective::kTtftP99)));
}

TEST(BalancedObjective, AThroughputRiseOfTwoPercentPays) {
  const auto j = judge_curve(curve({{0, 100, 1.0}, {20, 103, 1.01}}), TierObjective::kBalanced);
  EXPECT_EQ(j.metric, TierObjective::kThroughput);  // TTFT got 1% worse: within the 2% allowed
  EXPECT_TRUE(pays(j));
}

TEST(BalancedObjective, AGainThatCostsTheOtherMetricMoreThanTwoPercentIsRefused) {
  // -30% TTFT p99 but -5% tok/s at the only size with a gain.
  const auto j = judge_curve(curve({{0, 100, 1.0}, {20, 95, 0.70}}), TierObjective::kBalanced);
  EXPECT_FALSE(pays(j));
  EXPECT_LT(j.knee_gains[1], 0);
  EXPECT_NEAR(j.gains[1], -0.05, 1e-12);  // reported as it moved, not masked
  // +5% tok/s but TTFT p99 3% worse: refused too.
  EXPECT_FALSE(pays(judge_curve(curve({{0, 100, 1.0}, {20, 105, 1.03}}), TierObjective::kBalanced)));
}

TEST(BalancedObjective, TheKneeIsOnTheMetricThatMovedMostAgainstItsThreshold) {
  // +3% tok/s (1.5x its 2%) against -40% TTFT p99 (4x its 10%): TTFT decides.
  const auto j =
      judge_curve(curve({{0, 100, 1.0}, {20, 103, 0.80}, {40, 103, 0.60}}), TierObjective::kBalanced);
  EXPECT_EQ(j.metric, TierObjective::kTtftP99);
  // +8% tok/s (4x) against -20% TTFT (2x): throughput decides.
  const auto k = judge_curve(curve({{0, 100, 1.0}, {20, 108, 0.80}}), TierObjective::kBalanced);
  EXPECT_EQ(k.metric, TierObjective::kThroughput);
  // A refused size does not count toward what moved: its -60% TTFT comes with -10% tok/s.
  const auto m =
      judge_curve(curve({{0, 100, 1.0}, {20, 103, 0.95}, {40, 90, 0.40}}), TierObjective::kBalanced);
  EXPECT_EQ(m.metric, TierObjective::kThroughput);
  EXPECT_EQ(find_knee(m.knee_gains, 0.95, m.pays_gain)->index, 1u);
}

// Issue 36: no objective recommends a size that costs the server: under --objective ttft-p99 a
// 30% TTFT cut that costs 5% of throughput is refused (-1: never the knee), and so is a 20%
// throughput rise that makes TTFT p99 3% worse under --objective throughput; 1.5% is tolerated.
TEST(NamedObjective, NeverChoosesASizeThatLosesMoreThanTwoPercentOnAnyMetric) {
  const auto ttft =
      judge_curve(curve({{0, 100, 1.0}, {20, 95, 0.70}, {40, 98.5, 0.80}}), TierObjective::kTtftP99);
  EXPECT_NEAR(ttft.gains[1], 0.30, 1e-12);
  EXPECT_EQ(ttft.knee_gains[1], -1);
  EXPECT_NEAR(ttft.knee_gains[2], 0.20, 1e-12);
  const auto tput =
      judge_curve(curve({{0, 100, 1.0}, {20, 120, 1.03}, {40, 110, 1.015}}), TierObjective::kThroughput);
  EXPECT_EQ(tput.knee_gains[1], -1);
  EXPECT_NEAR(tput.knee_gains[2], 0.10, 1e-12);
}

TEST(BalancedObjective, ParsesAndIsNamed) {
  EXPECT_EQ(parse_tier_objective("balanced", "--objective"), TierObjective::kBalanced);
  EXPECT_EQ(to_string(TierObjective::kBalanced), "balanced");
}

namespace kvb {
namespace {

// Three draws per size: each draw's throughput against its own no-tier point.
TierCurvePoint drawn(double gib, std::vector<double> tput) {
  TierCurvePoint p;
  p.kv_offloading_size_gib = gib;
  double sum = 0;
  for (const double t : tput) sum += t;
  p.output_tokens_per_s = sum / static_cast<double>(tput.size());
  p.ttft_p99_s = 1.0;
  p.cpu_hit_rate = 0.2;
  p.draw_output_tokens_per_s = tput;
  p.draw_ttft_p99_s.assign(tput.size(), 1.0);
  p.draw_goodput_rps.assign(tput.size(), 0.0);
  return p;
}

TEST(DrawSpread, IsHalfTheRangeOfThePairedGainsAndHidesGainsWithinIt) {
  // No tier: 100 tok/s in each draw. 8 GiB: 103, 101, 105 -> gains 3%, 1%, 5%: mean 3%, spread
  // (5 - 1) / 2 = 2%. 16 GiB: 104, 96, 106 -> mean 102 (2%), gains 4%, -4%, 6%: spread 5%, so its
  // 2% is within the draws' noise and it is never the knee.
  const std::vector<TierCurvePoint> curve{drawn(0, {100, 100, 100}), drawn(8, {103, 101, 105}),
                                          drawn(16, {104, 96, 106})};
  const auto j = judge_curve(curve, TierObjective::kThroughput);
  ASSERT_EQ(j.spreads.size(), 3u);
  EXPECT_DOUBLE_EQ(j.spreads[0], 0.0);
  EXPECT_NEAR(j.spreads[1], 0.02, 1e-12);
  EXPECT_NEAR(j.spreads[2], 0.05, 1e-12);
  EXPECT_NEAR(j.gains[1], 0.03, 1e-12);
  EXPECT_NEAR(j.knee_gains[1], 0.03, 1e-12);
  EXPECT_DOUBLE_EQ(j.knee_gains[2], 0.0);
}

TEST(DrawSpread, OneDrawHasNone) {
  TierCurvePoint none, tier;
  none.output_tokens_per_s = 100;
  tier.output_tokens_per_s = 110;
  tier.kv_offloading_size_gib = 8;
  const auto j = judge_curve({none, tier}, TierObjective::kThroughput);
  EXPECT_DOUBLE_EQ(j.spreads[1], 0.0);
  EXPECT_NEAR(j.knee_gains[1], 0.10, 1e-12);
}

// A loss counts only beyond the draws' noise, as a gain counts only above it. No tier: TTFT p99
// 1.00 s in each of three draws. 64 GiB: +25% tok/s, TTFT p99 1.01, 1.045 and 1.015 s (mean
// 1.0233: 2.33% worse; the draws' TTFT gains -1%, -4.5%, -1.5% span 3.5%, half of it 1.75%): the
// loss is within 2% + 1.75% and the size pays. With the same mean in every draw (no spread) the
// 2.33% loss is refused.
TEST(DrawSpread, ALossWithinTheDrawsNoiseDoesNotRefuseASize) {
  auto none = drawn(0, {100, 100, 100});
  auto tier = drawn(64, {125, 125, 125});
  tier.draw_ttft_p99_s = {1.01, 1.045, 1.015};
  tier.ttft_p99_s = (1.01 + 1.045 + 1.015) / 3;
  const auto j = judge_curve({none, tier}, TierObjective::kBalanced);
  EXPECT_EQ(j.metric, TierObjective::kThroughput);
  EXPECT_NEAR(j.knee_gains[1], 0.25, 1e-12);
  tier.draw_ttft_p99_s.assign(3, tier.ttft_p99_s);
  EXPECT_EQ(judge_curve({none, tier}, TierObjective::kBalanced).knee_gains[1], -1);
  EXPECT_EQ(judge_curve({none, tier}, TierObjective::kThroughput).knee_gains[1], -1);
}

}  // namespace
}  // namespace kvb

// issue 58: an answer smaller than the simulation's own stated error is no answer.
ExpectedError dense_h100_class(double ttft_mean, double e2e_mean) {
  ScoredClass c;
  c.weights = "bf16";
  c.ttft_mean = ttft_mean;
  c.e2e_mean = e2e_mean;
  c.runs = 11;
  return {.moe = false, .weights = "bf16", .ranks = 1, .hardware = "h100", .scored = {c}, .fleet = false};
}

TEST(ModelErrorGate, ATtftCutWithinTheStatedErrorDoesNotPay) {
  // The main job's case: TTFT p99 61.7 -> 60.1 ms (a 2.6% cut, above ttft-p99's 2%) where the class
  // states TTFT mean within 3.1%: no knee with the error, a knee without it.
  const auto points = curve({{0, 100, 0.0617}, {65, 100, 0.0601}});
  const auto expected = dense_h100_class(0.031, 0.033);
  EXPECT_TRUE(pays(judge_curve(points, TierObjective::kTtftP99)));
  const auto j = judge_curve(points, TierObjective::kTtftP99, &expected);
  EXPECT_FALSE(pays(j));
  ASSERT_TRUE(j.model_error);
  EXPECT_DOUBLE_EQ(*j.model_error, 0.031);  // TTFT is judged on the TTFT mean's error
  EXPECT_FALSE(j.unscored);
}

TEST(ModelErrorGate, TheDrawsSpreadCountsAgainstTheGain) {
  // -4.0% TTFT p99 on the mean, draws at -2.5% and -5.5% (spread 1.5%): 4.0 - 1.5 = 2.5% does not
  // exceed a 3.1% error; draws at -3.5% and -4.5% (spread 0.5%) leave 3.5%, which does.
  const auto expected = dense_h100_class(0.031, 0.033);
  auto points = curve({{0, 100, 1.0}, {20, 100, 0.96}});
  points[0].draw_output_tokens_per_s = {100, 100};
  points[0].draw_goodput_rps = {0, 0};
  points[0].draw_ttft_p99_s = {1.0, 1.0};
  points[1].draw_output_tokens_per_s = {100, 100};
  points[1].draw_goodput_rps = {0, 0};
  points[1].draw_ttft_p99_s = {0.975, 0.945};
  const auto wide = judge_curve(points, TierObjective::kTtftP99, &expected);
  EXPECT_NEAR(wide.spreads[1], 0.015, 1e-12);
  EXPECT_FALSE(pays(wide));
  points[1].draw_ttft_p99_s = {0.965, 0.955};
  EXPECT_TRUE(pays(judge_curve(points, TierObjective::kTtftP99, &expected)));
}

TEST(ModelErrorGate, AGainBeyondTheStatedErrorStillPays) {
  // -18.5% TTFT p99 against a 3.1% error: the gate does not touch it.
  const auto expected = dense_h100_class(0.031, 0.033);
  const auto j =
      judge_curve(curve({{0, 100, 0.75112}, {131, 100, 0.61237}}), TierObjective::kTtftP99, &expected);
  EXPECT_TRUE(pays(j));
}

TEST(ModelErrorGate, ThroughputIsJudgedOnTheE2eError) {
  // +4% tok/s pays under throughput's 2%; the E2E error (5%) covers it, the TTFT error (1%) would not.
  const auto points = curve({{0, 100, 1.0}, {20, 104, 1.0}});
  const auto tight = dense_h100_class(0.01, 0.05);
  const auto j = judge_curve(points, TierObjective::kThroughput, &tight);
  EXPECT_DOUBLE_EQ(j.model_error.value_or(0), 0.05);
  EXPECT_FALSE(pays(j));
  const auto loose = dense_h100_class(0.01, 0.03);
  EXPECT_TRUE(pays(judge_curve(points, TierObjective::kThroughput, &loose)));
}

TEST(ModelErrorGate, AnUnscoredClassKeepsTheKneeAndSaysSo) {
  // A mixture-of-experts server where only dense bf16 on 1 rank was scored: no figure to compare
  // the gain with; the size stands, flagged as not told from the model's error.
  auto expected = dense_h100_class(0.031, 0.033);
  expected.moe = true;
  const auto j =
      judge_curve(curve({{0, 100, 0.0617}, {65, 100, 0.0601}}), TierObjective::kTtftP99, &expected);
  EXPECT_TRUE(pays(j));
  EXPECT_TRUE(j.unscored);
  EXPECT_FALSE(j.model_error);
  EXPECT_EQ(stated_error(expected, TierObjective::kTtftP99), std::nullopt);
}

}  // namespace
}  // namespace kvb
