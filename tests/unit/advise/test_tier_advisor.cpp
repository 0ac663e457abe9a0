// The simulated tier-size recommendation against cases whose answer is known without the
// simulator: traffic with nothing to reuse, a working set visited round-robin (the tier must hold
// all of it), and the CPU hit rate growing with the tier.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <variant>

#include "advise/tier_advisor.hpp"
#include "sim/scenario.hpp"

namespace kvb {
namespace {

TEST(TierGrid, StartsWithNoTierAndEndsAtTheCap) {
  const auto g = tier_size_grid(8, 143.05, 10);
  ASSERT_GE(g.size(), 8u);
  EXPECT_EQ(g.front(), 0);
  EXPECT_EQ(g[1], 4);  // half the floor
  EXPECT_EQ(g.back(), 143);
  for (std::size_t i = 1; i < g.size(); ++i) EXPECT_GT(g[i], g[i - 1]);
  EXPECT_EQ(tier_size_grid(8, 0.5, 10), std::vector<int>{0});  // no whole GiB under the cap
}

// Every prompt is new: 2,000 fresh tokens, no system prompt, one turn.
const char* kNoReuse = R"(
name: no-reuse
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 2GiB
max-model-len: 8192
seed: 5
workload:
  requests: 150
  arrival: {process: poisson, rate: 4}
  prompt: {distribution: lognormal, median: 2000, sigma: 0.3, max: 6000}
  output: 32
)";

TEST(TierAdvisor, NoReuseGivesNoTierAndSaysWhy) {
  TierAdviceRequest req{.scenario = parse_scenario(kNoReuse, "no-reuse.yaml"), .floor_gib = 2, .cap_gib = 64};
  for (auto objective : {TierObjective::kThroughput, TierObjective::kTtftP99}) {
    req.objective = objective;
    const auto rec = advise_tier_size(req);
    EXPECT_FALSE(rec.pays);
    EXPECT_EQ(rec.kv_offloading_size_gib, 0);
    ASSERT_TRUE(rec.verdict.has_value());
    const auto* no_reuse = std::get_if<NoReuseVerdict>(&*rec.verdict);
    ASSERT_NE(no_reuse, nullptr) << "verdict " << rec.verdict->index();
    EXPECT_LT(no_reuse->gpu_hit_rate + no_reuse->cpu_hit_rate, 0.01);
    EXPECT_EQ(no_reuse->gib, rec.curve.back().kv_offloading_size_gib);
    for (const auto& c : rec.curve) EXPECT_EQ(c.cpu_hit_rate, 0);
  }
}

// N = 40 documents of L = 4,096 tokens read in turn, one at a time; each request is the document
// plus one token, answered with one token. The GPU pool (2 GiB = 1,024 blocks = 4 documents) never
// holds a document when it comes back, and an LRU tier hits only when it holds all N: vLLM's tier is
// write-through, so it keeps every document including those the GPU also holds. Llama-3.1-8B at TP 1
// keeps 131,072 B per token: N x L x 131,072 B = 40 x 512 MiB = 20 GiB.
const char* kRoundRobin = R"(
name: round-robin
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 2GiB
max-model-len: 8192
seed: 1
workload:
  requests: 160
  arrival: {process: fixed, rate: 2}
  documents: 40
  document-tokens: 4096
  document-order: round-robin
  prompt: 1
  output: 1
)";

TEST(TierAdvisor, RoundRobinWorkingSetLandsOnItsClosedFormSize) {
  // A hit reloads 512 MiB in about 10 ms; a miss recomputes 4,096 tokens in about 140 ms, so a 50 ms
  // TTFT target is met exactly by the hits.
  TierAdviceRequest req{.scenario = parse_scenario(kRoundRobin, "round-robin.yaml"),
                        .objective = TierObjective::kGoodput,
                        .slo = {.ttft_s = 0.05},
                        .floor_gib = 2,
                        .cap_gib = 143};
  req.bisections = 5;
  const auto rec = advise_tier_size(req);
  const double closed_form_gib = 40.0 * 4096 * 131072 / (1024.0 * 1024 * 1024);
  ASSERT_DOUBLE_EQ(closed_form_gib, 20.0);
  EXPECT_TRUE(rec.pays);
  EXPECT_GE(rec.kv_offloading_size_gib, closed_form_gib);
  EXPECT_LE(rec.kv_offloading_size_gib, closed_form_gib + 1);
  // Below the working set the tier serves nothing; from it on, every revisit (3 of 4 requests).
  for (const auto& c : rec.curve) {
    if (c.kv_offloading_size_gib > 0 && c.kv_offloading_size_gib < closed_form_gib) {
      EXPECT_EQ(c.cpu_hit_rate, 0) << c.kv_offloading_size_gib << " GiB";
    }
    if (c.kv_offloading_size_gib >= closed_form_gib) {
      EXPECT_NEAR(c.cpu_hit_rate, 0.75, 0.01) << c.kv_offloading_size_gib << " GiB";
    }
  }
}

// Four documents of 4,096 tokens read in turn by one closed-loop user, on the 1,024-block pool of
// kRoundRobin (2 GiB / 2 MiB per block of Llama-3.1-8B): the pool holds the four documents' 1,024
// full blocks, so nearly every request after the first round hits. 10% fewer blocks (922) cannot
// hold them: each round recomputes what was evicted, and output tok/s falls well beyond 15% (the
// server sits on a knee of its pool). With 40 documents no pool within 10% of 1,024 blocks ever
// holds a document when it comes back (40 x 256 blocks): no hits either way, no knee.
std::optional<PoolKneeStep> knee_step(int documents) {
  auto text = std::string(kRoundRobin);
  const auto replace = [&text](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("documents: 40", "documents: " + std::to_string(documents));
  replace("arrival: {process: fixed, rate: 2}", "arrival: {process: closed, users: 1}");
  replace("requests: 160", "requests: 80");
  TierAdviceRequest req{.scenario = parse_scenario(text, "knee.yaml"),
                        .objective = TierObjective::kThroughput,
                        .floor_gib = 2,
                        .cap_gib = 32};
  req.grid_points = 3;
  req.bisections = 0;
  const auto rec = advise_tier_size(req);
  for (const auto& step : rec.steps) {
    if (const auto* k = std::get_if<PoolKneeStep>(&step)) return *k;
  }
  return std::nullopt;
}

TEST(TierAdvisor, AServerOnAKneeOfItsGpuPoolIsFlagged) {
  const auto knee = knee_step(4);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->gpu_blocks, 1024);
  EXPECT_DOUBLE_EQ(knee->pool_step, 0.1);
  ASSERT_TRUE(knee->smaller.has_value());  // 922 blocks still hold max-model-len 8,192 (512 blocks)
  EXPECT_LT(*knee->smaller, -0.15);
  EXPECT_FALSE(knee_step(40).has_value());
}

TEST(TierAdvisor, CpuHitRateGrowsWithTheTier) {
  auto s = load_scenario("chat-multi-turn");
  s.workload.requests = 600;
  TierAdviceRequest req{.scenario = s, .objective = TierObjective::kTtftP99, .floor_gib = 8, .cap_gib = 143};
  const auto rec = advise_tier_size(req);
  ASSERT_GE(rec.curve.size(), 8u);
  for (std::size_t i = 1; i < rec.curve.size(); ++i) {
    EXPECT_GE(rec.curve[i].cpu_hit_rate, rec.curve[i - 1].cpu_hit_rate - 0.005)
        << rec.curve[i].kv_offloading_size_gib << " GiB";
  }
  EXPECT_GT(rec.curve.back().cpu_hit_rate, 0.1);
  EXPECT_EQ(rec.curve.front().kv_offloading_size_gib, 0);
}

}  // namespace
}  // namespace kvb
