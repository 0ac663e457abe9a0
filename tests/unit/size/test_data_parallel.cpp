// Data and expert parallelism (issue 53 item 3): weights per rank, the configuration search's DP x
// EP and the all-to-all per MoE layer, against hand arithmetic and conservation of the weights.
#include <gtest/gtest.h>

#include "core/units.hpp"
#include "output/size/parallelism_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "perf/step_time_model.hpp"
#include "perf/weight_rules.hpp"
#include "size/configuration_search.hpp"
#include "size/sizing_engine.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {

// A MoE model's routed experts over all its layers, from the catalog's counts: P = dense + E x e,
// A = dense + k x e (the catalog's parameters, independent of weight_rules' code path).
double routed_expert_params(const ModelSpec& m) {
  return (m.params_total_b - m.params_active_b) / (m.num_experts - m.experts_per_token) * 1e9 * m.num_experts;
}

}  // namespace

TEST(DataParallel, WeightsOverTheNodeAreOneSetOfExpertsAndOneDensePartPerEngine) {
  // bf16 Qwen3-235B-A22B as DP 2 x TP 4: every rank holds dense / 4 and experts / 8, so the 8 GPUs
  // together hold the dense part twice (once per engine) and the experts once.
  const auto m = test::model("qwen3-235b-a22b");
  const double experts = routed_expert_params(m) * 2.0;
  const double dense = m.params_total_b * 1e9 * 2.0 - experts;
  const double per_rank = weight_bytes_per_rank(m, "bf16", 4, 8);
  EXPECT_NEAR(per_rank * 8, 2 * dense + experts, 1e3);
  EXPECT_NEAR(per_rank, dense / 4 + experts / 8, 1e3);
  // At DP 1 the split is TP's, the old figure exactly.
  EXPECT_DOUBLE_EQ(weight_bytes_per_rank(m, "bf16", 8, 8), weight_bytes_per_rank(m, "bf16", 8));
  // A dense model has no experts to spread: DP replicates it whole.
  const auto dense_model = test::model("llama-3.1-70b");
  EXPECT_DOUBLE_EQ(weight_bytes_per_rank(dense_model, "bf16", 4, 8),
                   weight_bytes_per_rank(dense_model, "bf16", 4));
}

TEST(DataParallel, SearchChoosesDp8EpForDeepSeekV3OnH200) {
  auto in = test::inputs("deepseek-v3", "h200");
  in.search_data_parallel = true;
  const auto s = search_configuration(in);
  ASSERT_TRUE(s.found);
  ASSERT_TRUE(s.tried.data_parallel);
  const auto& d = *s.tried.data_parallel;
  // TP 8 is the smallest TP that holds the FP8 weights; its MLA latent is on every rank, so the
  // same 8 GPUs as 8 engines of TP 1 hold each token once.
  EXPECT_EQ(d.tp_found, 8);
  EXPECT_TRUE(d.mla);
  EXPECT_EQ(s.found->inputs.kv.dp, 8);
  EXPECT_EQ(s.found->inputs.kv.tp, 1);
  EXPECT_TRUE(s.found->inputs.kv.expert_parallel);
  EXPECT_TRUE(d.engine_fits);
  EXPECT_GT(d.dp * d.engine_tokens, d.tp_tokens);
  // Each rank holds the dense part whole and 1/8 of the experts: more than TP 8's 1/8 of all.
  EXPECT_GT(d.weights_gib, d.tp_weights_gib);
  EXPECT_NE(data_parallel_tried_text(d, s.tried.tokens).find("DP 8 x EP chosen"), std::string::npos);
}

TEST(DataParallel, SearchChoosesDp2Tp4ForQwen3At4KvHeadsOnH100) {
  auto in = test::inputs("qwen3-235b-a22b", "h100");
  in.search_data_parallel = true;
  const auto s = search_configuration(in);
  ASSERT_TRUE(s.found);
  ASSERT_TRUE(s.tried.data_parallel);
  // 4 KV heads: TP 4 is the largest TP that stores each head once, so DP 2 x TP 4 on 8 GPUs.
  EXPECT_EQ(s.found->inputs.kv.tp, 4);
  EXPECT_EQ(s.found->inputs.kv.dp, 2);
  EXPECT_FALSE(s.found->sizing.layout.replicated);
}

TEST(DataParallel, DenseModelsAndTheSimulatorsSearchKeepTp) {
  auto dense = test::inputs("llama-3.1-405b", "h100");
  dense.search_data_parallel = true;
  dense.max_model_len = 32768;
  const auto d = search_configuration(dense);
  ASSERT_TRUE(d.found);
  EXPECT_FALSE(d.tried.data_parallel);
  EXPECT_EQ(d.found->inputs.kv.dp, 1);
  // Without search_data_parallel (simulate --tp auto) the MoE model keeps TP.
  const auto moe = search_configuration(test::inputs("deepseek-v3", "h200"));
  ASSERT_TRUE(moe.found);
  EXPECT_EQ(moe.found->inputs.kv.dp, 1);
  EXPECT_EQ(moe.found->inputs.kv.tp, 8);
}

TEST(DataParallel, TheTierIsPerEngineAndTheHostHoldsOnePerEngine) {
  auto in = test::inputs("deepseek-v3", "h200", 1);
  in.kv.dp = 8;
  in.kv.expert_parallel = true;
  in.kv_offloading_size_gib = 100;
  const auto s = compute_sizing(in);
  ASSERT_TRUE(s.offload);
  EXPECT_EQ(s.server.world_size(), 1);  // the flag's GiB over one engine's TP x PP ranks
  EXPECT_NEAR(s.offload->given_gib.value_or(0), 100, 1e-9);
  const auto lines = engine_tier_lines(s);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_NE(lines[1].find("8 engines x 100 GiB = 800 GiB"), std::string::npos) << lines[1];
  EXPECT_NE(s.vllm_command.find("--data-parallel-size 8"), std::string::npos);
  EXPECT_NE(s.vllm_command.find("--enable-expert-parallel"), std::string::npos);
}

TEST(DataParallel, AllToAllPerMoeLayerByHand) {
  // DeepSeek-V3 on H200 at TP 1 with its experts over EP 8: 61 layers, each dispatching and
  // combining T x hidden 7168 x k 8 x 2 B, 7/8 of it off the rank, over 450 GB/s x 0.75 with 5 us
  // per synchronisation.
  const auto m = test::model("deepseek-v3");
  const auto hw = resolve_hardware("h200");
  StepTimeModel steps(m, hw, 70272, 1, "fp8", Calibration{});
  StepWork w;
  w.add(0, 1024, 0);
  const double before_flops = steps.flops(w);
  steps.spread_experts(m, 8, true);
  const double bytes = 1024.0 * 7168 * 8 * 2 * 7 / 8;
  const double per_layer = 2 * (bytes / (450e9 * 0.75) + 5e-6);
  EXPECT_NEAR(steps.all_reduce_seconds(w), 61 * per_layer, 1e-9);
  // The routed experts' FLOPs split 8 ways: 7/8 of them leave this rank.
  const double expert = routed_expert_params(m) / m.num_experts * m.experts_per_token * 2 * 1024;
  EXPECT_NEAR(before_flops - steps.flops(w), expert * 7 / 8, expert * 1e-9);
}

TEST(DataParallel, ExpertParallelAtDp1ChangesNoStep) {
  // vLLM runs its all-to-all only where DP > 1: TP 8 + EP keeps TP 8's step.
  const auto m = test::model("deepseek-v3");
  const auto hw = resolve_hardware("h200");
  const StepTimeModel tp(m, hw, 70272, 8, "fp8", Calibration{});
  StepTimeModel ep(m, hw, 70272, 8, "fp8", Calibration{});
  ep.spread_experts(m, 8, true);
  StepWork w;
  w.add(0, 512, 0);
  EXPECT_DOUBLE_EQ(ep.step_seconds(w), tp.step_seconds(w));
}

TEST(DataParallel, TheJsonRecordsDpAndEpAndRoundTripsByteForByte) {
  auto in = test::inputs("deepseek-v3", "h200", 2);
  in.kv.dp = 4;
  in.kv.expert_parallel = true;
  const auto written = sizings_document({compute_sizing(in), compute_sizing(test::inputs("llama-3.1-8b"))});
  EXPECT_EQ(written["results"][0]["data_parallel_size"], 4);
  EXPECT_EQ(written["results"][0]["expert_parallel"], true);
  EXPECT_FALSE(written["results"][1].contains("data_parallel_size"));  // one engine: as before
  const auto read = size_document_from_json(written, "dp.json");
  EXPECT_EQ(size_document_json(read).dump(), written.dump());
  EXPECT_EQ(read.results[0].server.data_parallel_size, 4);
}
