// The two-level miss-ratio curve (trace/tier_levels) against stack distances counted by hand, the
// one-level curve it splits (conservation) and its JSON read back.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/miss_ratio.hpp"
#include "trace/tier_levels.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_json.hpp"

namespace kvb {
namespace {

TraceRequest request(std::vector<std::uint64_t> ids) {
  TraceRequest r;
  r.prompt_tokens = 16 * static_cast<std::int64_t>(ids.size());  // every block full: 16 tokens
  r.block_ids = std::move(ids);
  return r;
}

// Blocks A..F as 1..6. The LRU stack (most recent first) before each access, counted by hand:
//   [A B]  cold, cold                  -> B A
//   [A B]  A at 2; B at 2 (A on top)   -> B A           2 blocks at distance 2
//   [C]    cold                        -> C B A
//   [A]    A at 3                      -> A C B         1 block at 3
//   [D] [E] cold                       -> E D A C B
//   [B C]  B at 5; C at 5              -> C B E D A     2 blocks at 5
//   [A F]  A at 5; F cold              -> F A C B E D   1 block at 5, then a miss
//   [D A]  D at 6; A at 3, but served only after D: its effective distance is 6 (2 blocks at 6)
// 14 blocks, 224 tokens; within 2: 32, 3: 48, 5: 96, 6 and beyond: 128.
HitCurve hand_counted() {
  PrefixMissRatio m(16);
  for (const auto& ids :
       std::vector<std::vector<std::uint64_t>>{{1, 2}, {1, 2}, {3}, {1}, {4}, {5}, {2, 3}, {1, 6}, {4, 1}})
    m.add(request(ids));
  return m.hit_curve();
}

TEST(TierLevels, SharesAreTheHandCountedDistancesBetweenTheTiers) {
  const auto hits = hand_counted();
  EXPECT_DOUBLE_EQ(hits.hit_rate_at(1), 0.0);
  EXPECT_DOUBLE_EQ(hits.hit_rate_at(2), 32.0 / 224);
  EXPECT_DOUBLE_EQ(hits.hit_rate_at(4), 48.0 / 224);
  EXPECT_DOUBLE_EQ(hits.unbounded_hit_rate(), 128.0 / 224);
  // GPU 2 blocks, CPU tier 3, secondary 5: distances 2 | 3 | 4..5.
  auto s = tier_shares(hits, {2, 5}, 3);
  EXPECT_DOUBLE_EQ(s.gpu, 32.0 / 224);
  EXPECT_DOUBLE_EQ(s.cpu, 16.0 / 224);
  EXPECT_DOUBLE_EQ(s.secondary, 48.0 / 224);
  // An unbounded secondary serves every re-reference the CPU tier of 4 misses: distances 5 and 6.
  s = tier_shares(hits, {2, std::nullopt}, 4);
  EXPECT_DOUBLE_EQ(s.cpu, 16.0 / 224);
  EXPECT_DOUBLE_EQ(s.secondary, 80.0 / 224);
  // Inclusive tiers: a CPU tier no larger than the GPU pool, or a secondary no larger than the CPU
  // tier, only mirrors the one in front and serves nothing of its own.
  EXPECT_DOUBLE_EQ(tier_shares(hits, {2, 5}, 1).cpu, 0.0);
  EXPECT_DOUBLE_EQ(tier_shares(hits, {2, 3}, 5).secondary, 0.0);
}

TEST(TierLevels, NoSecondaryTierGivesTheOneLevelCurve) {
  const auto hits = hand_counted();
  for (std::int64_t c = 1; c <= 8; ++c) {
    const auto s = tier_shares(hits, {0, 0}, c);  // no GPU pool in front, no secondary behind
    EXPECT_DOUBLE_EQ(s.cpu, hits.hit_rate_at(c)) << c;
    EXPECT_DOUBLE_EQ(s.gpu + s.secondary, 0.0) << c;
  }
}

TEST(TierLevels, TheTiersTogetherServeWhatOneCacheOfTheLargestServes) {
  // Conservation on random shared prefixes: GPU + CPU + secondary = the one-level curve at
  // max(G, C, S), each share at least 0.
  std::mt19937_64 rng(55);
  PrefixMissRatio m(16);
  for (int i = 0; i < 500; ++i) {
    std::vector<std::uint64_t> ids;
    const auto tree = rng() % 20, length = 1 + rng() % 12;
    for (std::uint64_t b = 0; b < length; ++b) ids.push_back(b < 5 ? tree * 100 + b : 10'000 + rng() % 400);
    m.add(request(ids));
  }
  const auto hits = m.hit_curve();
  for (const std::int64_t g : {0, 7, 60})
    for (const std::int64_t c : {1, 30, 200})
      for (const std::int64_t s : {0, 50, 900}) {
        const auto t = tier_shares(hits, {g, s}, c);
        EXPECT_NEAR(t.total(), m.hit_rate_at(std::max({g, c, s})), 1e-12) << g << " " << c << " " << s;
        EXPECT_GE(t.cpu, 0.0);
        EXPECT_GE(t.secondary, 0.0);
      }
  // The sampled curve reads the same exact counts as the stack's own sum.
  for (const auto& p : m.curve()) EXPECT_NEAR(p.prefix_hit_rate, m.hit_rate_at(p.blocks), 1e-12);
}

TEST(TierLevels, TheCurveTakesOnlyCpuTiersLargerThanTheGpuPool) {
  const auto hits = hand_counted();
  const auto c = two_level_curve(hits, {3, std::nullopt}, hits.sample(6));
  ASSERT_FALSE(c.points.empty());
  for (const auto& p : c.points) EXPECT_GT(p.cpu_blocks, 3);
  EXPECT_EQ(c.points.back().cpu_blocks, 6);
  EXPECT_DOUBLE_EQ(c.points.back().total(), 128.0 / 224);
}

TEST(TraceJson, TheTwoLevelCurveIsReadBack) {
  TraceOptions o;
  auto a = analyze_trace(std::string(KVBENCH_TEST_DATA) + "/traces/mooncake-conversation-head2000.jsonl", o);
  TraceKvCost cost;
  cost.server.model = "llama-3.1-8b";
  cost.server.hardware = "h100";
  cost.kv_bytes_per_token = 131072;
  for (const std::optional<std::int64_t> s :
       {std::optional<std::int64_t>(400), std::optional<std::int64_t>()}) {
    a.two_level = two_level_curve(a.hits, {25, s}, a.curve);
    ASSERT_FALSE(a.two_level->points.empty());
    const auto doc = trace_json(a, cost);
    const auto read = trace_document_from_json(doc, "trace.json");
    ASSERT_TRUE(read.analysis.two_level);
    EXPECT_EQ(read.analysis.two_level->levels.secondary_blocks, s);
    EXPECT_EQ(trace_json(read.analysis, read.cost).dump(), doc.dump());
  }
  // Shares that add up to more than every prompt token are refused, naming the file.
  auto bad = trace_json(a, cost);
  bad["two_level_curve"]["points"][0]["secondary_tier_hit_rate"] = 0.99;
  bad["two_level_curve"]["points"][0]["gpu_hit_rate"] = 0.5;
  EXPECT_THROW(trace_document_from_json(bad, "bad.json"), UsageError);
}

}  // namespace
}  // namespace kvb
