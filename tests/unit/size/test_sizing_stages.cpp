// The sizing's three stages (size_fit -> plan_sizing -> with_commands): a caller's facts are
// inputs of the plan, placed after the engine's; a tier chosen by a caller is an input of the last
// stage, whose commands read its size and never its fleet figures.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {

template <class T, class V>
int count_of(const std::vector<V>& all) {
  int n = 0;
  for (const auto& x : all) n += std::holds_alternative<T>(x) ? 1 : 0;
  return n;
}

TierRecommendation simulated(double gib) {
  TierRecommendation r;
  r.basis = RecommendationBasis::kSimulation;
  r.kv_offloading_size_gib = gib;
  return r;
}

// Llama-3.1-70B at TP 2 on H100s: 65.7 GiB of weights per GPU leave a few GiB, short of one
// 128K request (320 KiB per token over two ranks: 20 GiB each), enough for a shorter one.
SizingInputs seventy_b_short_of_128k() {
  auto in = test::inputs("llama-3.1-70b", "h100", 2);
  in.max_model_len = 131072;
  return in;
}

// The last stage takes a plan; a finished sizing is not commanded a second time.
template <class T>
concept Commandable = requires(T t, const SizingInputs& in) {
  with_commands(std::move(t), in);
};
static_assert(Commandable<SizingPlan>);
static_assert(!Commandable<Sizing>);

}  // namespace

TEST(SizingStages, TheCallersNotesAndWarningsFollowTheEnginesInTheirOrder) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 32768;
  const auto alone = plan_sizing(in);
  CallerFacts caller;
  caller.notes.emplace_back(std::in_place_type<CatalogNote>, CatalogNote{"first"});
  caller.notes.emplace_back(std::in_place_type<CatalogNote>, CatalogNote{"second"});
  caller.warnings.emplace_back(std::in_place_type<WorkloadServerKeysIgnored>,
                               WorkloadServerKeysIgnored{"chat", {"max-num-seqs"}, "chat"});
  const auto plan = plan_sizing(in, caller);
  ASSERT_EQ(plan.notes.size(), alone.notes.size() + 2);
  ASSERT_EQ(plan.warnings.size(), alone.warnings.size() + 1);
  EXPECT_EQ(std::get<CatalogNote>(plan.notes[alone.notes.size()]).text, "first");
  EXPECT_EQ(std::get<CatalogNote>(plan.notes.back()).text, "second");
  EXPECT_EQ(std::get<WorkloadServerKeysIgnored>(plan.warnings.back()).keys.front(), "max-num-seqs");
  // The commands add their own warning after them, never before (a 600 GiB tier on 0.28 refuses).
  in.vllm_version = VllmVersion{0, 28, 0};
  const auto planned = plan_sizing(in, caller);
  const auto s =
      with_commands(planned, in, with_recommendation(*planned.offload, planned, in, simulated(600)));
  EXPECT_TRUE(std::holds_alternative<TierRegionPinFails>(s.warnings.back()));
  EXPECT_TRUE(std::holds_alternative<WorkloadServerKeysIgnored>(s.warnings[s.warnings.size() - 2]));
}

TEST(SizingStages, ATrafficOnAPlanWithoutATierForTheRequestedContextIsNotSimulated) {
  const auto in = seventy_b_short_of_128k();
  CallerFacts caller;
  caller.workload = "chat";
  const auto plan = plan_sizing(in, caller);
  ASSERT_FALSE(plan.fits);
  ASSERT_TRUE(plan.weights_fit);
  ASSERT_TRUE(plan.offload);  // planned for the shorter context the command suggests
  EXPECT_FALSE(plan.simulable());
  ASSERT_EQ(count_of<WorkloadNotSimulated>(plan.warnings), 1);
  const auto& w = std::get<WorkloadNotSimulated>(plan.warnings.back());
  EXPECT_EQ(w.workload.workload, "chat");
  EXPECT_TRUE(w.workload.weights_fit);
  const auto& rule = std::get<RuleVerdict>(*plan.offload->recommendation.verdict);
  ASSERT_TRUE(rule.not_simulated);
  EXPECT_EQ(rule.not_simulated->workload, "chat");
  // Without a traffic, the same plan says neither.
  const auto plain = plan_sizing(in);
  EXPECT_EQ(count_of<WorkloadNotSimulated>(plain.warnings), 0);
  EXPECT_FALSE(std::get<RuleVerdict>(*plain.offload->recommendation.verdict).not_simulated);
}

TEST(SizingStages, APlanWithATierIsSimulatedAndSaysNothingOfIt) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 32768;
  CallerFacts caller;
  caller.workload = "chat";
  const auto plan = plan_sizing(in, caller);
  EXPECT_TRUE(plan.simulable());
  EXPECT_EQ(count_of<WorkloadNotSimulated>(plan.warnings), 0);
}

TEST(SizingStages, TheCommandsReadTheChosenTiersSizeNotItsFleet) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 32768;
  const auto plan = plan_sizing(in);
  const auto tier = with_recommendation(*plan.offload, plan, in, simulated(64));
  auto with_fleet = tier;
  FleetTier fleet;
  fleet.fleet = FleetSpec{4, RouterKind::kPrefixAware};
  fleet.nodes = 4;
  with_fleet.recommendation.fleet = fleet;
  const auto a = with_commands(plan, in, tier);
  const auto b = with_commands(plan, in, with_fleet);
  EXPECT_NE(a.vllm_command.find("--kv-offloading-size 64"), std::string::npos) << a.vllm_command;
  EXPECT_EQ(a.vllm_command, b.vllm_command);
  EXPECT_EQ(a.vllm_command_legacy, b.vllm_command_legacy);
  ASSERT_TRUE(b.offload->recommendation.fleet);
  EXPECT_EQ(b.offload->recommendation.fleet->nodes, 4);
  // The plan's own tier (the rule's) is what the commands give without one chosen.
  const auto rule = with_commands(plan, in);
  EXPECT_EQ(rule.offload->recommended_gib(), plan.offload->recommended_gib());
}

TEST(SizingStages, AContextSuffixIsNotedLastWithTheLengthSized) {
  auto serve = ServeSettings{};
  serve.max_model_len = 32768;
  serve.max_model_len_as_written = "32k";
  const auto in = test::inputs("llama-3.1-8b");
  const auto sized = size_configurations({in.model}, {in.hw}, serve, {});
  ASSERT_EQ(sized.results.size(), 1u);
  const auto& notes = sized.results.front().notes;
  ASSERT_FALSE(notes.empty());
  const auto& n = std::get<ContextSuffixNote>(notes.back());
  EXPECT_EQ(n.given, "32k");
  EXPECT_EQ(n.tokens, 32768);
}
