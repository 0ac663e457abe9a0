// The wording of a tier recommendation's facts (output/size/tier_advice_text): the figures each fact
// carries appear as written by hand below, and a recommendation without facts keeps its own words.
#include <gtest/gtest.h>

#include <string>

#include "output/size/tier_advice_text.hpp"

namespace kvb {
namespace {

TEST(TierAdviceText, GainsAreInTheMetricsOwnSign) {
  EXPECT_EQ(describe_gain(0.12, TierObjective::kThroughput), "+12.0% output tok/s");
  // A TTFT p99 gain of 0.351 is a fall of 35.1%.
  EXPECT_EQ(describe_gain(0.351, TierObjective::kTtftP99), "-35.1% TTFT p99");
  EXPECT_EQ(describe_gain(-0.05, TierObjective::kGoodput), "-5.0% goodput");
}

TEST(TierAdviceText, TheKneeNamesItsShareOfTheBestGain) {
  // 0.2 of gain at 16 GiB against 0.25 at 64 GiB: 80% of the best.
  const TierVerdict v = KneeVerdict{.gib = 16,
                                    .share_of_best = 0.2 / 0.25,
                                    .best_gain = 0.25,
                                    .best_gib = 64,
                                    .cpu_hit_rate = 0.4,
                                    .metric = TierObjective::kThroughput};
  EXPECT_EQ(tier_verdict_text(v),
            "the knee: 16 GiB reaches 80.0% of the best gain (+25.0% output tok/s at 64 GiB), with 40.0% of "
            "prompt tokens from the CPU tier");
}

TEST(TierAdviceText, ACostNamesItsMechanismOrSaysNoneAddedStepTime) {
  TierCostsVerdict v{.gib = 32, .loss = 0.184, .mechanism_share = 0.07, .mechanism = "fabric-sharing"};
  EXPECT_EQ(tier_verdict_text(v),
            "at this traffic a tier of 32 GiB costs 18.4% output tok/s (mostly fabric-sharing: 7.0% of the "
            "engine's step time)");
  v.mechanism.clear();
  EXPECT_NE(tier_verdict_text(v).find("(no cost mechanism adds step time:"), std::string::npos);
}

TEST(TierAdviceText, TheRecommendationStepSaysItsSpreadOnlyOverSeveralDraws) {
  RecommendStep s{.gib = 20,
                  .gain = 0.1,
                  .gain_spread = 0,
                  .metric = TierObjective::kThroughput,
                  .seeds = 1,
                  .bound = TierBound::kKnee,
                  .ttft_p99_none_s = 2,
                  .ttft_p99_s = 1,
                  .output_tokens_per_s_none = 1000,
                  .output_tokens_per_s = 1100,
                  .cpu_hit_rate = 0.25,
                  .goodput_none_rps = std::nullopt,
                  .goodput_rps = std::nullopt};
  EXPECT_EQ(advice_step_text(s),
            "recommend 20 GiB (+10.0% output tok/s; bound: knee): TTFT p99 2.00 s -> 1.00 s, output 1000 -> "
            "1100 tok/s, CPU-tier hits 25.0% of prompt tokens");
  s.gain_spread = 0.015;
  s.seeds = 3;
  EXPECT_NE(advice_step_text(s).find("(+10.0% output tok/s +/- 1.5% over 3 draws; bound: knee)"),
            std::string::npos);
}

TEST(TierAdviceText, TraceCandidatesListEachSizeWithWhyAndItsHitRate) {
  const TraceCandidatesStep s{
      .picked = {{.gib = 11, .kind = CandidateKind::kAboveFloor, .share = 0, .hit_rate = 0.1},
                 {.gib = 40, .kind = CandidateKind::kShareOfCap, .share = 0.8, .hit_rate = 0.4},
                 {.gib = 100, .kind = CandidateKind::kCapStillRising, .share = 0, .hit_rate = 0.45}}};
  EXPECT_EQ(
      advice_step_text(s),
      "simulated sizes from the curve's bends, each with the prefix hit rate the curve gives it: 11 GiB "
      "(vLLM's floor + 1: 10.0%), 40 GiB (80% of the cap's hit rate: 40.0%), 100 GiB (the cap, the curve "
      "still rising: 45.0%)");
}

TEST(TierAdviceText, TheRuleSaysWhereItsSessionsComeFromAndWhyNothingWasSimulated) {
  RuleVerdict v{.sessions = 1, .source = {.given = true, .gpu_sessions = 0.5}, .not_simulated = std::nullopt};
  EXPECT_EQ(tier_verdict_text(v),
            "1 full-length session kept warm (--concurrency 1); no traffic simulated (size --workload "
            "simulates it)");
  v.sessions = 3;
  v.source.given = false;
  v.not_simulated = NotSimulatedWorkload{.workload = "chat", .weights_fit = false};
  EXPECT_EQ(tier_verdict_text(v),
            "workload chat not simulated: the weights do not fit; 3 full-length sessions kept warm (default: "
            "2 x the "
            "0.50 full-length sessions the GPU pool holds (the tier is write-through, so it must exceed the "
            "GPU pool "
            "to add anything)); no traffic simulated (size --workload simulates it)");
}

TEST(TierAdviceText, PinningSaysWhoseFigureStandsIn) {
  PinningCost c{.register_s_per_gib = 0.25,
                .host_alloc_s_per_gib = 0.5,
                .source = "h100/x.json",
                .hardware = "mi300x",
                .stood_in = "h100"};
  EXPECT_EQ(
      pinning_source_text(c),
      "0.25 s/GiB mmap + first touch + cudaHostRegister (vLLM's way), 0.50 s/GiB cudaHostAlloc; h100/x.json; "
      "not measured on mi300x: pinning is host work, so the H100 node's figure stands in");
  c.stood_in.clear();
  EXPECT_EQ(pinning_source_text(c).substr(pinning_source_text(c).rfind("; ") + 2), "h100/x.json");
  c.source.clear();
  EXPECT_NE(pinning_source_text(c).find("not measured on mi300x nor on any catalog GPU"), std::string::npos);
}

TEST(TierAdviceText, FactsAreWordedAndAnOlderDocumentsWordsAreKept) {
  TierRecommendation r;
  EXPECT_EQ(recommendation_why(r), "");  // a document from before recommendations has no verdict
  r.verdict = WordedVerdict{"read back from a document"};
  r.steps = {WordedStep{"a line as written"}};
  EXPECT_EQ(recommendation_why(r), "read back from a document");
  EXPECT_EQ(recommendation_reasoning(r), std::vector<std::string>{"a line as written"});

  TierRecommendation simulated;
  simulated.verdict = InterruptedVerdict{.signal = "SIGINT", .gib = 8, .sizes = 1};
  simulated.steps = {StillRisingStep{.cap_gib = 400}};
  EXPECT_EQ(
      recommendation_why(simulated),
      "interrupted (SIGINT) during the 8 GiB tier's simulation after 1 tier size: no size recommended from "
      "a partial curve");
  EXPECT_EQ(recommendation_reasoning(simulated),
            std::vector<std::string>{"the gain is still rising at the 400 GiB host-DRAM cap: more host "
                                     "memory would pay (--host-memory)"});
}

}  // namespace
}  // namespace kvb
