// The tier recommendation's verdict and steps in size's JSON are facts with a kind tag (issue 54
// §2): each read back as the fact written, field by field, so a read-back recommendation is worded
// as the live one was.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "advise/tier_advisor.hpp"
#include "core/errors.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/tier_advice_text.hpp"
#include "sim/scenario.hpp"
#include "size/tier_advice_json.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// One of each kind, every field away from its default (and each optional set), so a field the
// writer or the reader drops shows in the comparison (the facts' defaulted ==, field by field).
std::vector<TierVerdict> verdicts() {
  return {RuleVerdict{.sessions = 7,
                      .source = {.given = true, .gpu_sessions = 3.25},
                      .not_simulated = NotSimulatedWorkload{"chat", false}},
          KneeVerdict{45, 0.951, 0.77, 65, 0.401, TierObjective::kTtftP99},
          NoRoomVerdict{0.75},
          TierCostsVerdict{32, 0.125, 0.625, "store-drain"},
          NoReuseVerdict{0.0025, 0.001, 143},
          ReuseFitsGpuVerdict{0.875, 0.0625, 64},
          TradedOffVerdict{48, 0.25, -0.0625},
          ArrivalBoundVerdict{0.375, 0.5, 96},
          LinkBoundVerdict{0.625, 0.9375, 128},
          ComputeBoundVerdict{0.1875, 24},
          WithinModelErrorVerdict{16, 0.03125, 0.015625, 0.05, 0.25, TierObjective::kGoodput},
          InterruptedVerdict{"SIGTERM", 8, 3},
          WordedVerdict{"an older document's words"}};
}

std::vector<AdviceStep> steps() {
  return {FleetCandidatesStep{4, RouterKind::kLeastLoaded, true},
          TraceCurveStep{12345, 0.75, 143, 0.625, 54.5, 0.125},
          TraceCandidatesStep{{{56, CandidateKind::kAboveFloor, 0.5, 0.25},
                               {96, CandidateKind::kShareOfCap, 0.9, 0.5625},
                               {143, CandidateKind::kCapStillRising, 0.75, 0.625}}},
          OverloadedStep{12.5, true},
          SimulatedStep{9, "chat-multi-turn", 400, 3, 143, TierObjective::kTtftP99},
          NoTierStep{0.03125, TierObjective::kTtftP99, TierObjective::kGoodput, true, 0.05},
          OtherObjectiveStep{TierObjective::kGoodput, TierObjective::kTtftP99, 72, 0.375},
          WorsePointStep{8, -0.25, 0.875, 0.5, TierObjective::kGoodput},
          RaisedToFloorStep{32, 54.5, 56},
          StillRisingStep{400},
          RecommendStep{.gib = 45,
                        .gain = 0.3125,
                        .gain_spread = 0.046875,
                        .metric = TierObjective::kGoodput,
                        .seeds = 3,
                        .bound = TierBound::kFloor,
                        .ttft_p99_none_s = 2.5,
                        .ttft_p99_s = 0.75,
                        .output_tokens_per_s_none = 1200.5,
                        .output_tokens_per_s = 1500.25,
                        .cpu_hit_rate = 0.40625,
                        .goodput_none_rps = 1.5,
                        .goodput_rps = 2.25,
                        .unscored = true},
          PoolKneeStep{0.2, 1024, -0.375, 0.0625},
          WordedStep{"a line of an older document's reasoning"}};
}

TEST(TierAdviceJson, EveryVerdictKindRoundTripsFieldByField) {
  const auto all = verdicts();
  ASSERT_EQ(all.size(), std::variant_size_v<TierVerdict>);
  std::set<std::string> kinds;
  for (const auto& v : all) {
    const auto j = tier_verdict_to_json(v);
    kinds.insert(j.at("kind").get<std::string>());
    const auto back = tier_verdict_from_json(json::parse(j.dump()), "size.json");
    EXPECT_EQ(back.index(), v.index()) << j.dump();
    EXPECT_TRUE(back == v) << j.dump();
    EXPECT_EQ(tier_verdict_text(back), tier_verdict_text(v));
  }
  EXPECT_EQ(kinds.size(), all.size());  // one tag per kind
  EXPECT_EQ(tier_verdict_kinds().size(), all.size());
}

TEST(TierAdviceJson, EveryStepKindRoundTripsFieldByField) {
  const auto all = steps();
  ASSERT_EQ(all.size(), std::variant_size_v<AdviceStep>);
  std::set<std::string> kinds;
  for (const auto& s : all) {
    const auto j = advice_step_to_json(s);
    kinds.insert(j.at("kind").get<std::string>());
    const auto back = advice_step_from_json(json::parse(j.dump()), "size.json");
    EXPECT_TRUE(back == s) << j.dump();
    EXPECT_EQ(advice_step_text(back), advice_step_text(s));
  }
  EXPECT_EQ(kinds.size(), all.size());
  EXPECT_EQ(advice_step_kinds().size(), all.size());
}

TEST(TierAdviceJson, AbsentOptionalsReadBackAbsent) {
  const AdviceStep knee = PoolKneeStep{0.1, 900, std::nullopt, 0.25};
  EXPECT_EQ(advice_step_to_json(knee).at("smaller"), json(nullptr));
  EXPECT_TRUE(advice_step_from_json(advice_step_to_json(knee), "x.json") == knee);
  const AdviceStep simulated = SimulatedStep{5, "chat", 100, 1, 64, std::nullopt};
  EXPECT_TRUE(advice_step_from_json(advice_step_to_json(simulated), "x.json") == simulated);
  const TierVerdict rule = RuleVerdict{.sessions = 2, .source = {}, .not_simulated = std::nullopt};
  EXPECT_TRUE(tier_verdict_from_json(tier_verdict_to_json(rule), "x.json") == rule);
}

TEST(TierAdviceJson, AnUnknownKindIsRefusedNamingTheKindsKvbenchWrites) {
  try {
    (void)tier_verdict_from_json(json{{"kind", "tier-too-warm"}}, "old.json");
    FAIL() << "an unknown verdict kind was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old.json: verdict"), std::string::npos) << what;
    EXPECT_NE(what.find("'tier-too-warm'"), std::string::npos) << what;
    EXPECT_NE(what.find("within-model-error"), std::string::npos) << what;
  }
  try {
    (void)advice_step_from_json(json{{"gib", 8}}, "old.json");  // no kind at all
    FAIL() << "a step without a kind was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("pool-knee"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tier_verdict_from_json(json(3), "x.json"), UsageError);
  EXPECT_THROW(advice_step_from_json(json::array(), "x.json"), UsageError);
}

TEST(TierAdviceJson, AFigureOutOfRangeOrAnUnknownTagIsRefused) {
  auto knee = tier_verdict_to_json(verdicts().at(1));
  knee["cpu_hit_rate"] = 1.5;  // a share of prompt tokens is at most 1
  EXPECT_THROW(tier_verdict_from_json(knee, "x.json"), UsageError);
  knee = tier_verdict_to_json(verdicts().at(1));
  knee["metric"] = "latency";
  EXPECT_THROW(tier_verdict_from_json(knee, "x.json"), UsageError);
  auto picked = advice_step_to_json(steps().at(2));
  picked["picked"][0]["kind"] = "a-guess";
  EXPECT_THROW(advice_step_from_json(picked, "x.json"), UsageError);
  auto simulated = advice_step_to_json(steps().at(4));
  simulated["draws"] = 0;  // at least one workload draw
  EXPECT_THROW(advice_step_from_json(simulated, "x.json"), UsageError);
  auto recommend = advice_step_to_json(steps().at(10));
  recommend["bound"] = "somewhere";
  EXPECT_THROW(advice_step_from_json(recommend, "x.json"), UsageError);
}

std::vector<std::string> step_words(const std::vector<AdviceStep>& steps) {
  std::vector<std::string> out;
  for (const auto& s : steps) out.push_back(advice_step_text(s));
  return out;
}

TEST(TierAdviceJson, ADocumentWrittenBeforeVerdictsWereFactsStillReadsItsWords) {
  TierRecommendation live;
  live.verdict = verdicts().at(1);
  live.steps = {steps().at(4), steps().at(10)};
  auto old = recommendation_to_json(live);
  old.erase("verdict");
  old.erase("steps");
  old["why"] = tier_verdict_text(*live.verdict);  // as the writer wrote them before
  old["reasoning"] = step_words(live.steps);
  const auto back = recommendation_from_json(old, "old.json");
  ASSERT_TRUE(back.verdict.has_value());
  EXPECT_TRUE(std::holds_alternative<WordedVerdict>(*back.verdict));
  EXPECT_EQ(recommendation_why(back), recommendation_why(live));
  EXPECT_EQ(recommendation_reasoning(back), recommendation_reasoning(live));
  // and written back as the worded facts they are
  const auto again = recommendation_to_json(back);
  EXPECT_EQ(again.at("verdict").at("kind"), "worded");
  EXPECT_EQ(again.at("steps").at(1).at("kind"), "worded");
}

TEST(TierAdviceJson, ThePinningFiguresAreReadBackAndWordedAsLive) {
  TierRecommendation live;
  live.kv_offloading_size_gib = 64;
  live.pinning = PinningCost{.register_s_per_gib = 0.26,
                             .host_alloc_s_per_gib = 0.39,
                             .source = "h100/pinning.json",
                             .hardware = "mi300x",
                             .stood_in = "h100"};
  const auto written = recommendation_to_json(live);
  const auto back = recommendation_from_json(json::parse(written.dump()), "size.json");
  ASSERT_TRUE(back.pinning.has_value());
  EXPECT_EQ(back.pinning->host_alloc_s_per_gib, 0.39);
  EXPECT_EQ(back.pinning->stood_in, "h100");
  EXPECT_EQ(recommendation_pin_source(back), recommendation_pin_source(live));
  auto old = written;  // before the figures were recorded: their words
  old["startup_pinning_s"].erase("cost");
  old["startup_pinning_s"]["source"] = recommendation_pin_source(live);
  EXPECT_FALSE(recommendation_from_json(old, "old.json").pinning.has_value());
  auto bad = written;
  bad["startup_pinning_s"]["cost"]["register_s_per_gib"] = -1;
  EXPECT_THROW(recommendation_from_json(bad, "bad.json"), UsageError);
}

// A live recommendation, simulated (four documents read in turn by one user on a 1,024-block pool:
// the server sits on a knee of its pool, tests/unit/advise/test_tier_advisor.cpp), and the rule's.
TierRecommendation simulated_live() {
  const char* text = R"(
name: knee
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 2GiB
max-model-len: 8192
seed: 1
workload:
  requests: 80
  arrival: {process: closed, users: 1}
  documents: 4
  document-tokens: 4096
  document-order: round-robin
  prompt: 1
  output: 1
)";
  TierAdviceRequest req{.scenario = parse_scenario(text, "knee.yaml"),
                        .objective = TierObjective::kThroughput,
                        .floor_gib = 2,
                        .cap_gib = 32};
  req.grid_points = 3;
  req.bisections = 0;
  return advise_tier_size(req);
}

TEST(TierAdviceJson, ALiveRecommendationIsWordedAsItsDocumentReadBack) {
  const auto live = simulated_live();
  ASSERT_TRUE(live.verdict.has_value());
  ASSERT_GE(live.steps.size(), 2u);
  const auto back = recommendation_from_json(json::parse(recommendation_to_json(live).dump()), "size.json");
  ASSERT_TRUE(back.verdict.has_value());
  EXPECT_TRUE(*back.verdict == *live.verdict);
  EXPECT_EQ(recommendation_why(back), recommendation_why(live));
  EXPECT_EQ(recommendation_reasoning(back), recommendation_reasoning(live));
  for (const auto& s : back.steps) EXPECT_FALSE(std::holds_alternative<WordedStep>(s));

  const auto rule = compute_sizing(test::inputs("llama-3.1-8b"));
  ASSERT_TRUE(rule.offload.has_value());
  const auto doc = size_document_from_json(json::parse(sizings_document({rule}).dump()), "rule.json");
  const auto& read = doc.results.at(0).offload->recommendation;
  ASSERT_TRUE(read.verdict.has_value());
  EXPECT_TRUE(std::holds_alternative<RuleVerdict>(*read.verdict));
  EXPECT_EQ(recommendation_why(read), recommendation_why(rule.offload->recommendation));
  EXPECT_TRUE(read.steps.empty());  // the rule's steps are the plan's (offload.rule)
}

}  // namespace
}  // namespace kvb
