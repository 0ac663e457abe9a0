// kvbench/size/v1 read back beside its writer: every field of a recommendation survives the trip.
#include <gtest/gtest.h>

#include <fstream>

#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "output/size/secondary_advice_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/size_text.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

SizingInputs llama8b_32k() {
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.max_model_len = 32768;
  return make_sizing_inputs(resolve_model("llama-3.1-8b", warnings), resolve_hardware("h100"), serve);
}

TierCurvePoint full_curve_point() {
  return {.kv_offloading_size_gib = 64,
          .output_tokens_per_s = 1500.5,
          .ttft_p50_s = 0.25,
          .ttft_p99_s = 1.5,
          .cpu_hit_rate = 0.125,
          .gpu_hit_rate = 0.25,
          .goodput_rps = 3.5,
          .h2d_utilization = 0.0625,
          .d2h_utilization = 0.03125,
          .engine_busy_share = 0.875,
          .gain = 0.5,
          .costliest_mechanism = "fabric-sharing",
          .costliest_share = 0.125,
          .busiest_ttft_p99_s = 2.5,
          .replica_hit_rate_min = 0.25,
          .replica_hit_rate_max = 0.75,
          .output_tokens_per_s_min = 1400.25,
          .output_tokens_per_s_max = 1600.75,
          .ttft_p99_min_s = 1.25,
          .ttft_p99_max_s = 1.75,
          .gain_spread = 0.0625,
          .draw_output_tokens_per_s = {},  // not written: the spread and range are
          .draw_ttft_p99_s = {},
          .draw_goodput_rps = {}};
}

// Every field set to a value no default has, so a field the reader drops shows as a difference.
TierRecommendation simulated_recommendation() {
  TierRecommendation rec;
  rec.basis = RecommendationBasis::kSimulation;
  rec.objective = TierObjective::kBalanced;
  rec.decided_by = TierObjective::kTtftP99;
  rec.kv_offloading_size_gib = 64;
  rec.pays = false;
  rec.costs = true;
  rec.gain = 0.375;
  rec.gain_spread = 0.03125;
  rec.seeds = 3;
  rec.verdict = KneeVerdict{.gib = 64, .share_of_best = 0.9375, .best_gain = 0.5, .best_gib = 96};
  rec.bound = TierBound::kKnee;
  rec.floor_gib = 54.5;
  rec.cap_gib = 143;
  rec.workload = "chat-multi-turn";
  rec.expected.emplace();
  rec.expected->weights = "bf16";
  rec.expected->hardware = "h100";
  ScoredClass scored;
  scored.weights = "bf16";
  scored.runs = 12;
  scored.ttft_mean = 0.0390625;
  rec.expected->scored.push_back(scored);
  rec.requests = 1234;
  rec.curve = {full_curve_point()};
  rec.trace_curve = {{1.5, 0.1}, {64, 0.375}};
  rec.steps = {StillRisingStep{.cap_gib = 143}, WordedStep{"a line as an older document wrote it"}};
  rec.pin_seconds_low = 16.5;
  rec.pin_seconds_high = 25.25;
  rec.pinning = PinningCost{.register_s_per_gib = 0.25,
                            .host_alloc_s_per_gib = 0.5,
                            .source = "h100/x.json",
                            .hardware = "mi300x",
                            .stood_in = "h100"};
  rec.fleet =
      FleetTier{.fleet = {8, RouterKind::kPrefixAware},
                .replicas_per_node = 4,
                .nodes = 2,
                .host_bytes_per_replica = 65.5e9,
                .host_bytes_per_node = 262e9,
                .host_bytes_total = 524e9,
                .compared_router = RouterKind::kRoundRobin,
                .compared_gib = 256,
                .compared_pays = true,
                .compared_gain = 0.25,
                .compared_metric = TierObjective::kTtftP99,
                .router_capacities = RouterCapacities{.server_block_size = 16,
                                                      .producer_block_tokens = 64,
                                                      .gpu = {1'600'000, 25'000},
                                                      .autotune_gpu_entries = 100'000,
                                                      .cpu = PrefixProducerCapacity{5'120'000, 80'000}}};
  rec.secondary = SecondaryTierAdvice{.verdict = SecondaryVerdict::kPays,
                                      .stated_gib = 1000,
                                      .cpu_gib = 64,
                                      .read_gbps = 12.5,
                                      .write_gbps = 6.25,
                                      .latency_us = 80,
                                      .rates_stated = false,
                                      .metric = TierObjective::kTtftP99,
                                      .pays_gain = 0.1,
                                      .gain = 0.34375,
                                      .gain_spread = 0.0625,
                                      .model_error = 0.113,
                                      .hit_rate = 0.021,
                                      .recommended_gib = 164,
                                      .basis = SecondaryCapacityBasis::kPeakHeld,
                                      .ladder_gib = 250,
                                      .replicas = 2,
                                      .cpu_output_tokens_per_s = 499.5,
                                      .cpu_ttft_p99_s = 0.34,
                                      .ladder = {{.gib = 250,
                                                  .output_tokens_per_s = 500.25,
                                                  .ttft_p99_s = 0.224,
                                                  .hit_rate = 0.021,
                                                  .cpu_hit_rate = 0.211,
                                                  .gain = 0.34375,
                                                  .gain_spread = 0.0625,
                                                  .bytes_written = 5.3e11,
                                                  .bytes_read = 7.2e10,
                                                  .peak_gib = 163.125}},
                                      .prefix_tokens = 128'000,
                                      .disk_read_s = 3.5,
                                      .reload_s = 0.24,
                                      .recompute_s = 17.45,
                                      .trace_curve = SecondaryCurveShares{0.0625, 0.21875, 0.125}};
  return rec;
}

TEST(SizeJson, ASimulatedRecommendationRoundTripsByteForByte) {
  const auto rec = simulated_recommendation();
  const auto written = recommendation_to_json(rec);
  const auto read = recommendation_from_json(written, "test");
  EXPECT_EQ(recommendation_to_json(read).dump(), written.dump());
  EXPECT_EQ(read.objective, TierObjective::kBalanced);
  EXPECT_EQ(read.decided_by, TierObjective::kTtftP99);
  EXPECT_EQ(read.requests, 1234);
  EXPECT_DOUBLE_EQ(read.curve.at(0).engine_busy_share, 0.875);
  ASSERT_TRUE(read.fleet);
  EXPECT_EQ(read.fleet->fleet.router, RouterKind::kPrefixAware);
  EXPECT_EQ(read.fleet->compared_router, RouterKind::kRoundRobin);
  ASSERT_TRUE(read.fleet->router_capacities && read.fleet->router_capacities->cpu);
  EXPECT_EQ(read.fleet->router_capacities->cpu->lru_capacity_per_server, 80'000);
  EXPECT_DOUBLE_EQ(read.curve.at(0).busiest_ttft_p99_s, 2.5);
  ASSERT_TRUE(read.secondary);  // size --secondary-tier-size's verdict, its facts and its words
  EXPECT_EQ(read.secondary->basis, SecondaryCapacityBasis::kPeakHeld);
  EXPECT_DOUBLE_EQ(read.secondary->ladder.at(0).peak_gib, 163.125);
  EXPECT_DOUBLE_EQ(*read.secondary->model_error, 0.113);
  ASSERT_TRUE(read.secondary->trace_curve);  // size --trace: the two-level curve's count beside it
  EXPECT_DOUBLE_EQ(read.secondary->trace_curve->secondary, 0.125);
  // Its words are worded again from the facts read, as from the live ones.
  const auto words = secondary_advice_lines(*read.secondary);
  EXPECT_EQ(words, secondary_advice_lines(*rec.secondary));
  ASSERT_FALSE(words.empty());
  EXPECT_NE(words.back().find("would serve 12.5% of prompt tokens beyond the CPU tier's 21.9%"),
            std::string::npos);
}

TEST(SizeJson, ASimulatedSecondaryTierPlanRoundTripsThroughTheWholeDocument) {
  auto in = llama8b_32k();
  in.kv_offloading_size_gib = 64;
  in.secondary_tier_gib = 250;
  in.secondary_tier_dir = "/mnt/nvme0/kv";
  auto s = compute_sizing(in);
  ASSERT_TRUE(s.secondary);
  s.secondary->simulated = true;
  s.secondary_command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-transfer-config '{}'";
  const auto written = sizings_document({s});
  const auto read = size_document_from_json(written, "secondary.json");
  EXPECT_EQ(size_document_json(read).dump(), written.dump());
  ASSERT_TRUE(read.results.at(0).secondary);
  EXPECT_TRUE(read.results.at(0).secondary->simulated);
  EXPECT_DOUBLE_EQ(read.results.at(0).secondary->gib, 250);
  EXPECT_EQ(read.results.at(0).secondary->dir, "/mnt/nvme0/kv");  // --secondary-tier-dir, in the command too
  EXPECT_NE(read.results.at(0).vllm_command.find("\"root_dir\":\"/mnt/nvme0/kv\""), std::string::npos);
}

TEST(SizeJson, TheRulesRecommendationRoundTripsThroughTheWholeDocument) {
  const auto s = compute_sizing(llama8b_32k());
  ASSERT_TRUE(s.offload);
  const auto doc = sizings_document({s});
  const auto read = size_document_from_json(doc, "test");
  ASSERT_EQ(read.results.size(), 1u);
  ASSERT_TRUE(read.results[0].offload);
  const auto& rec = read.results[0].offload->recommendation;
  EXPECT_EQ(recommendation_to_json(rec).dump(), doc.at("results").at(0).at("recommendation").dump());
  // The one size: the document's top-level figure is the recommendation's.
  EXPECT_EQ(doc.at("results").at(0).at("recommended_kv_offloading_size_gib").get<double>(),
            rec.kv_offloading_size_gib);
  EXPECT_EQ(rec.basis, RecommendationBasis::kRule);
}

TEST(SizeJson, ASimulatedRecommendationHandedToTheSizingMovesEveryFigureOfTheTier) {
  const auto in = llama8b_32k();
  const auto plan = plan_sizing(in);
  const auto s =
      with_commands(plan, in, with_recommendation(*plan.offload, plan, in, simulated_recommendation()));
  const auto j = sizing_to_json(s);
  EXPECT_EQ(j.at("recommended_kv_offloading_size_gib"), 64);
  // vllm/v1/kv_offload/cpu/spec.py: 64 GiB // one 16-token block of 32 layers x 2 x 8 x 128 x 2 B.
  EXPECT_EQ(j.at("num_cpu_blocks"), 64LL * (1LL << 30) / (32LL * 2 * 8 * 128 * 2 * 16));
  EXPECT_NE(s.vllm_command.find("--kv-offloading-size 64"), std::string::npos);
}

TEST(SizeJson, AnUnknownBoundIsRefusedNamingTheFile) {
  auto written = recommendation_to_json(simulated_recommendation());
  written["bound"] = "elbow";
  try {
    (void)recommendation_from_json(written, "run.json: result llama on h100");
    FAIL() << "an unknown bound was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("run.json: result llama on h100: bound 'elbow'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("knee"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

// Issue 34 §2: gpt-oss-120b's GPU KV tokens were 318,528 in size's table and 163,424 in the report
// (the log figure, which counts its sliding-window group too). One figure, written once: the report
// reads what the table prints.
TEST(SizeJson, TheReportReadsTheGpuKvTokensTheTablePrints) {
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.max_model_len = 131072;
  const auto s = compute_sizing(
      make_sizing_inputs(resolve_model("gpt-oss-120b", warnings), resolve_hardware("h100"), serve));
  ASSERT_FALSE(s.layout.uniform);
  ASSERT_NE(s.gpu_kv_tokens, s.gpu_kv_tokens_capacity);  // the two figures differ for this model
  const auto rows = size_document_from_json(sizings_document({s}), "test").results;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].gpu_context_tokens(), s.gpu_kv_tokens_capacity);
  EXPECT_EQ(rows[0].gpu_context_tokens(), s.gpu_context_tokens());
  EXPECT_NE(sizing_summary_table({s}).find(format_count(rows[0].gpu_context_tokens())), std::string::npos);
}

// The documents size wrote for the golden cases (three GPUs at two lengths, and a tier
// recommended by simulating doc-qa) read back into SizeDocument write the same bytes.
TEST(SizeJson, EveryGoldenSizeDocumentRoundTripsByteForByte) {
  for (const char* name :
       {"size-h100-32k.json", "size-h100-128k.json", "size-b200-32k.json", "size-b200-128k.json",
        "size-mi300x-32k.json", "size-mi300x-128k.json", "size-workload-doc-qa.json"}) {
    std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/../golden/" + name);
    auto written = nlohmann::json::parse(in);
    written["tool"] = "kvbench 0.0.0";  // golden.py leaves the tool's version out
    const auto read = size_document_from_json(written, name);
    EXPECT_EQ(size_document_json(read).dump(1), written.dump(1)) << name;
    EXPECT_EQ(read.results.size(), written.at("results").size()) << name;
  }
}

// Each server size writes for: SGLang's HiCache, Dynamo's KVBM, LMCache, vLLM with a given tier
// beside its own recommendation, a hybrid model, and weights that do not fit.
TEST(SizeJson, EachEnginesResultRoundTripsByteForByte) {
  std::vector<std::string> warnings;
  const auto run = [&](const std::string& model, const std::string& hw, EngineKind engine,
                       ServeSettings serve) {
    NodeOverrides node;
    node.engine = engine;
    return compute_sizing(
        make_sizing_inputs(resolve_model(model, warnings), resolve_hardware(hw), serve, node));
  };
  ServeSettings serve;
  serve.max_model_len = 32768;
  auto given = serve;
  given.kv_offloading_size = 48.5;
  std::vector<Sizing> all = {run("llama-3.1-8b", "h100", EngineKind::kSglang, serve),
                             run("llama-3.1-8b", "h100", EngineKind::kDynamo, serve),
                             run("llama-3.1-8b", "h100", EngineKind::kLmcache, serve),
                             run("llama-3.1-8b", "mi300x", EngineKind::kVllm, given),
                             run("gpt-oss-120b", "h100", EngineKind::kVllm, serve),
                             run("llama-3.1-405b", "l4", EngineKind::kVllm, serve)};
  const auto written = sizings_document(all);
  const auto read = size_document_from_json(written, "engines.json");
  EXPECT_EQ(size_document_json(read).dump(), written.dump());
  EXPECT_EQ(read.results[0].engine, EngineKind::kSglang);
  EXPECT_GT(read.results[0].hicache_size_gb_per_rank, 0);
  EXPECT_DOUBLE_EQ(*read.results[3].offload->given_gib, 48.5);
  EXPECT_FALSE(read.results[5].weights_fit);
  EXPECT_FALSE(read.results[5].offload);  // no tier is recommended for weights that do not fit
}

TEST(SizeJson, AFigureNoConfigurationCanHaveIsRefusedNamingTheFile) {
  auto doc = sizings_document({compute_sizing(llama8b_32k())});
  doc["results"][0]["tensor_parallel_size"] = 1410065408;
  try {
    (void)size_document_from_json(doc, "bad.json");
    FAIL() << "a TP of 1410065408 was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tensor_parallel_size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvb
