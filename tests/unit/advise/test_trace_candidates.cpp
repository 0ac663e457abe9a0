// size --trace's candidate sizes read off a miss-ratio curve written by hand.
#include <gtest/gtest.h>

#include "advise/trace_candidates.hpp"

namespace kvb {
namespace {

TraceAnalysis analysis(std::initializer_list<std::pair<std::int64_t, double>> points, double unbounded) {
  TraceAnalysis a;
  a.requests = 100;
  a.unbounded_prefix_hit_rate = unbounded;
  for (const auto& [blocks, hit] : points) a.curve.push_back({blocks, hit});
  return a;
}

TEST(TraceCandidates, SizesWhereTheCurveReachesSharesOfTheCapsHitRate) {
  // One block = 1 GiB. The cap (100 GiB) holds the 60-block point: 45%. 50% of that (22.5%) is first
  // reached at 20 GiB, 80% (36%) at 40, 90%/95%/99% (40.5..44.6%) at 60; the floor + 1 is 11; the
  // curve still rises past the cap (45% < 99% of 50%), so the cap is a candidate too.
  const auto c =
      trace_candidates(analysis({{5, 0.1}, {20, 0.3}, {40, 0.4}, {60, 0.45}, {200, 0.5}}, 0.5), 1.0, 10, 100);
  EXPECT_EQ(c.sizes_gib, (std::vector<int>{11, 20, 40, 60, 100}));
  EXPECT_DOUBLE_EQ(c.hit_rate_at_cap, 0.45);
  ASSERT_TRUE(c.curve_step.has_value());
  EXPECT_DOUBLE_EQ(c.curve_step->hit_rate_at_floor, 0.1);  // the 5-block point is the last within 10 GiB
  // Picked in order: the floor + 1, then 20 (50%) and 40 (80%); 90% lands on 60, the cap last.
  ASSERT_EQ(c.picked.picked.size(), 5u);
  const auto& at40 = c.picked.picked[2];
  EXPECT_EQ(at40.gib, 40);
  EXPECT_EQ(at40.kind, CandidateKind::kShareOfCap);
  EXPECT_DOUBLE_EQ(at40.share, 0.8);
  EXPECT_DOUBLE_EQ(at40.hit_rate, 0.4);
  EXPECT_EQ(c.picked.picked.back().kind, CandidateKind::kCapStillRising);
}

TEST(TraceCandidates, EverySizeIsAboveTheFloorAndWithinTheCap) {
  // Half a GiB per block: the 50% share (at 2 blocks, 1 GiB) lies under the 30 GiB floor.
  const auto c = trace_candidates(analysis({{2, 0.2}, {100, 0.3}, {150, 0.4}}, 0.4), 0.5, 30, 80);
  ASSERT_FALSE(c.sizes_gib.empty());
  for (int gib : c.sizes_gib) {
    EXPECT_GE(gib, 31);
    EXPECT_LE(gib, 80);
  }
  EXPECT_EQ(c.sizes_gib.back(), 75);  // 150 blocks = 75 GiB reaches the cap's whole hit rate
}

TEST(TraceCandidates, NoReuseLeavesOnlyTheSmallestTier) {
  const auto c = trace_candidates(analysis({}, 0), 1.0, 10, 100);
  EXPECT_EQ(c.sizes_gib, std::vector<int>{11});
  EXPECT_TRUE(
      trace_candidates(analysis({}, 0), 1.0, 10, 10.5).sizes_gib.empty());  // no whole GiB above the floor
}

}  // namespace
}  // namespace kvb
