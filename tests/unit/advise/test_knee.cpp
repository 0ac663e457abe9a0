// The knee of a gain curve and the objectives' gains, on synthetic curves computed by hand.
#include <gtest/gtest.h>

#include "advise/knee.hpp"
#include "advise/tier_objective.hpp"
#include "core/errors.hpp"

namespace kvb {
namespace {

TEST(Knee, StepCurveKneeIsTheStep) {
  // Nothing until the tier holds the working set, then everything.
  const auto k = find_knee({0, 0, 0, 0.5, 0.5, 0.5});
  ASSERT_TRUE(k);
  EXPECT_EQ(k->index, 3u);
  EXPECT_DOUBLE_EQ(k->best_gain, 0.5);
}

TEST(Knee, SaturatingCurveKneeReaches95PercentOfTheBest) {
  // gain(i) = 1 - 2^-i: 0.5, 0.75, 0.875, 0.9375, 0.96875; 95% of 0.96875 = 0.9203.
  const auto k = find_knee({0, 0.5, 0.75, 0.875, 0.9375, 0.96875});
  ASSERT_TRUE(k);
  EXPECT_EQ(k->index, 4u);
  EXPECT_EQ(k->best_index, 5u);
}

TEST(Knee, UnderTwoPercentDoesNotPay) {
  EXPECT_FALSE(find_knee({0, 0.005, 0.01, 0.019}));
  EXPECT_TRUE(find_knee({0, 0.005, 0.01, 0.021}));
  EXPECT_FALSE(find_knee({0, -0.1, -0.2}));  // worse everywhere
  EXPECT_FALSE(find_knee({0}));              // nothing but the no-tier point
}

TEST(Knee, NonMonotoneCurveTakesTheFirstSizeNearTheBest) {
  // A dip after the knee (store traffic at a large tier) does not move it.
  const auto k = find_knee({0, 0.3, 0.96, 1.0, 0.7});
  ASSERT_TRUE(k);
  EXPECT_EQ(k->index, 2u);
  EXPECT_EQ(k->best_index, 3u);
}

TierCurvePoint point(double gib, double tok_s, double ttft_p99, double goodput) {
  TierCurvePoint p;
  p.kv_offloading_size_gib = gib;
  p.output_tokens_per_s = tok_s;
  p.ttft_p99_s = ttft_p99;
  p.goodput_rps = goodput;
  return p;
}

TEST(Objective, GainsAgainstTheNoTierPoint) {
  const std::vector<TierCurvePoint> curve{point(0, 100, 2.0, 4), point(8, 110, 1.0, 5),
                                          point(16, 100, 0.5, 8)};
  const auto t = objective_gains(curve, TierObjective::kThroughput);
  EXPECT_NEAR(t[1], 0.10, 1e-12);
  EXPECT_DOUBLE_EQ(t[2], 0.0);
  const auto p99 = objective_gains(curve, TierObjective::kTtftP99);
  EXPECT_DOUBLE_EQ(p99[1], 0.5);   // halved
  EXPECT_DOUBLE_EQ(p99[2], 0.75);  // quartered
  const auto good = objective_gains(curve, TierObjective::kGoodput);
  EXPECT_DOUBLE_EQ(good[2], 1.0);  // doubled
}

TEST(Objective, GoodputFromZeroIsTheShareOfTheBest) {
  const std::vector<TierCurvePoint> curve{point(0, 1, 1, 0), point(8, 1, 1, 1), point(16, 1, 1, 4)};
  const auto g = objective_gains(curve, TierObjective::kGoodput);
  EXPECT_DOUBLE_EQ(g[1], 0.25);
  EXPECT_DOUBLE_EQ(g[2], 1.0);
}

TEST(Objective, ParsesTheThreeNamesAndRejectsOthers) {
  EXPECT_EQ(parse_tier_objective("ttft-p99", "--objective"), TierObjective::kTtftP99);
  EXPECT_EQ(parse_tier_objective("goodput", "--objective"), TierObjective::kGoodput);
  EXPECT_THROW(parse_tier_objective("latency", "--objective"), UsageError);
}

}  // namespace
}  // namespace kvb
