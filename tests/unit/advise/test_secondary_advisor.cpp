// size --secondary-tier-size's verdict rule on figures written by hand: a secondary tier behind the
// recommended CPU tier pays by the CPU tier's own rule (the objective's threshold, the draws' spread,
// the simulation's stated error) and with hits of its own; else the verdict says why not.
#include <gtest/gtest.h>

#include "advise/secondary_advisor.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

constexpr double kBlockBytes = 5.0 * 1024 * 1024;  // Llama-3.1-70B's 16-token block over 4 ranks

TierCurvePoint point(double tput, double ttft_p99) {
  TierCurvePoint p;
  p.output_tokens_per_s = tput;
  p.ttft_p99_s = ttft_p99;
  return p;
}

// (output tok/s, TTFT p99 s, share of prompt tokens from the secondary, peak GiB held)
std::vector<SecondaryRun> runs(std::initializer_list<std::tuple<double, double, double, double>> points) {
  std::vector<SecondaryRun> out;
  for (const auto& [tput, ttft, hits, peak_gib] : points) {
    SecondaryRun r{.point = point(tput, ttft)};
    r.hit_rate = hits;
    r.peak_blocks = static_cast<std::int64_t>(peak_gib * kGiB / kBlockBytes);
    out.push_back(r);
  }
  return out;
}

// A 128,000-token prefix, 0.24 s to reload from the CPU tier and 17.45 s to recompute (the 70B's
// figures on 4 H100s), behind a disk of `read_gbps`.
SecondaryAdviceRequest disk(double read_gbps) {
  SecondaryAdviceRequest r;
  r.figures.read_bytes_per_s = read_gbps * 1e9;
  r.figures.write_bytes_per_s = 6e9;
  r.stated_gib = 1000;
  r.prefix_tokens = 128'000;
  r.block_size = 16;
  r.reload_s = 0.24;
  r.recompute_s = 17.45;
  return r;
}

ExpectedError dense_class(double ttft_mean, double e2e_mean) {
  ScoredClass c;
  c.weights = "bf16";
  c.ttft_mean = ttft_mean;
  c.e2e_mean = e2e_mean;
  c.runs = 5;
  return {.moe = false, .weights = "bf16", .ranks = 1, .hardware = "h100", .scored = {c}, .fleet = false};
}

const std::vector<double> kLadder{250, 500, 1000};

SecondaryTierAdvice judge(const SecondaryAdviceRequest& req, const std::vector<SecondaryRun>& r,
                          const ExpectedError* expected = nullptr) {
  return judge_secondary_tier(req, kLadder, 100, kBlockBytes, TierObjective::kBalanced, expected,
                              point(500, 0.340), r);
}

TEST(SecondaryLadder, AQuarterHalfAndAllOfTheStatedSizeInWholeGibWithoutRepeats) {
  EXPECT_EQ(secondary_ladder(1000), (std::vector<double>{250, 500, 1000}));
  EXPECT_EQ(secondary_ladder(3), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(secondary_ladder(2), (std::vector<double>{1, 2}));
  EXPECT_EQ(secondary_ladder(1), (std::vector<double>{1}));
  // Behind a 300 GiB CPU tier the quarter (250) would only mirror part of it: left out.
  EXPECT_EQ(secondary_ladder(1000, 300), (std::vector<double>{500, 1000}));
  EXPECT_EQ(secondary_ladder(200, 565), (std::vector<double>{200}));  // the stated size is always simulated
}

TEST(SecondaryVerdictRule, AFastDiskThatCutsTtftPaysAtTheSmallestLadderSizeWithTheGain) {
  // TTFT p99 340 -> 224 ms (-34.1%) at 250 GiB, -34.5% at 500 and 1000: 250 reaches 95% of the best.
  const auto e = dense_class(0.113, 0.049);
  const auto a = judge(
      disk(12), runs({{500, 0.224, 0.021, 250}, {500, 0.2227, 0.022, 500}, {500, 0.2227, 0.022, 507}}), &e);
  ASSERT_EQ(a.verdict, SecondaryVerdict::kPays);
  EXPECT_EQ(a.metric, TierObjective::kTtftP99);
  EXPECT_NEAR(a.gain, 1 - 0.224 / 0.340, 1e-12);
  EXPECT_DOUBLE_EQ(a.recommended_gib, 250);
  EXPECT_EQ(a.basis, SecondaryCapacityBasis::kLadder);  // it filled its 250 GiB
  EXPECT_NEAR(a.ladder[2].peak_gib, 507, 0.01);
}

TEST(SecondaryVerdictRule, ATierThatNeverFilledIsSizedAtTheMostItHeld) {
  const auto a =
      judge(disk(12), runs({{500, 0.22, 0.03, 163.1}, {500, 0.22, 0.03, 163.1}, {500, 0.22, 0.03, 163.1}}));
  ASSERT_EQ(a.verdict, SecondaryVerdict::kPays);
  EXPECT_DOUBLE_EQ(a.recommended_gib, 164);  // 163.1 GiB held, rounded up
  EXPECT_EQ(a.basis, SecondaryCapacityBasis::kPeakHeld);
  EXPECT_DOUBLE_EQ(a.ladder_gib, 250);
  EXPECT_FALSE(a.model_error);  // no class given: the gain stands, unscored
  // A fleet's peak is its replicas' sum while each replica has the capacity: the ladder size stands.
  auto fleet = runs({{500, 0.22, 0.03, 163.1}, {500, 0.22, 0.03, 163.1}, {500, 0.22, 0.03, 163.1}});
  for (auto& r : fleet) r.replicas = 2;
  const auto f = judge(disk(12), fleet);
  EXPECT_DOUBLE_EQ(f.recommended_gib, 250);
  EXPECT_EQ(f.basis, SecondaryCapacityBasis::kLadder);
}

TEST(SecondaryVerdictRule, AGainWithinTheStatedErrorIsNoSecondaryTier) {
  // -10.6% TTFT p99 pays balanced's 10% rule, but not beyond a stated 11.3% TTFT error.
  const auto r = runs({{500, 0.304, 0.02, 250}, {500, 0.304, 0.02, 300}, {500, 0.304, 0.02, 300}});
  EXPECT_EQ(judge(disk(12), r).verdict, SecondaryVerdict::kPays);
  const auto e = dense_class(0.113, 0.049);
  const auto a = judge(disk(12), r, &e);
  EXPECT_EQ(a.verdict, SecondaryVerdict::kWithinModelError);
  EXPECT_DOUBLE_EQ(a.recommended_gib, 0);
  EXPECT_DOUBLE_EQ(*a.model_error, 0.113);
}

TEST(SecondaryVerdictRule, AGainWithoutHitsFromTheTierIsTheCpuTierHoldingTheWorkingSet) {
  const auto a = judge(disk(12), runs({{500, 0.25, 0.0, 0}, {500, 0.25, 0.0, 0}, {500, 0.25, 0.0, 0}}));
  EXPECT_EQ(a.verdict, SecondaryVerdict::kWorkingSetInCpu);
}

TEST(SecondaryVerdictRule, ASlowDiskIsSlowerThanRecomputeByHand) {
  // 8,000 blocks of 5 MiB at 0.5 GB/s: 8000 x 5,242,880 / 0.5e9 = 83.886 s, against 17.45 s.
  const auto a =
      judge(disk(0.5), runs({{500, 2.38, 0.022, 250}, {500, 2.51, 0.023, 500}, {500, 2.51, 0.023, 507}}));
  EXPECT_EQ(a.verdict, SecondaryVerdict::kDiskSlowerThanRecompute);
  EXPECT_NEAR(a.disk_read_s, 83.886, 0.001);
  EXPECT_DOUBLE_EQ(a.recommended_gib, 0);
}

TEST(SecondaryVerdictRule, AFastDiskThatMakesTtftWorseCosts) {
  // 12 GB/s reads the prefix in 3.5 s, faster than recompute, yet TTFT p99 is 5% worse everywhere.
  const auto a =
      judge(disk(12), runs({{500, 0.357, 0.02, 250}, {500, 0.357, 0.02, 500}, {500, 0.357, 0.02, 500}}));
  EXPECT_NEAR(a.disk_read_s, 8000 * kBlockBytes / 12e9, 1e-9);
  EXPECT_EQ(a.verdict, SecondaryVerdict::kCosts);
}

TEST(SecondaryVerdictRule, AGainUnderTheThresholdDoesNotPay) {
  // -5% TTFT p99 and flat throughput: under balanced's 10% and 2%.
  const auto a =
      judge(disk(12), runs({{500, 0.323, 0.02, 250}, {500, 0.323, 0.02, 500}, {500, 0.323, 0.02, 500}}));
  EXPECT_EQ(a.verdict, SecondaryVerdict::kBelowThreshold);
  EXPECT_NEAR(a.gain, 0.05, 1e-9);
}

}  // namespace
}  // namespace kvb
