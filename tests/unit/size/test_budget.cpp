// The overhead model against the two published vLLM budget breakdowns (Qwen2.5-7B-AWQ under vLLM 0.26,
// Qwen3-235B-FP8 TP8 under vLLM 0.10.2). Weights are not compared: those checkpoints' exact byte counts are
// not in the catalog.
#include <gtest/gtest.h>

#include "core/units.hpp"
#include "size/memory_budget.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {
ModelSpec qwen25_7b() {
  ModelSpec m = test::model("qwen3-14b");  // shape fields replaced below
  m.name = "qwen2.5-7b";
  m.num_hidden_layers = 28;
  m.hidden_size = 3584;
  m.num_experts = 0;
  m.params_total_b = 7.6;
  m.params_active_b = 7.6;
  return m;
}
}  // namespace

TEST(MemoryBudget, OverheadsWithin15PercentOfQwen25_7BLog) {
  // Logged: activations 1.04, CUDA graphs 0.48, non-torch 0.06 GiB (TP1).
  BudgetInputs in;
  in.total_gib = 15.99;
  in.weight_dtype = "int4";
  const auto b = estimate_budget(qwen25_7b(), in);
  EXPECT_NEAR(b.activation_gib, 1.04, 1.04 * 0.15);
  EXPECT_NEAR(b.cuda_graph_gib, 0.48, 0.48 * 0.15);
  EXPECT_NEAR(b.non_torch_gib, 0.06, 0.06 * 0.15);
}

TEST(MemoryBudget, OverheadsWithin15PercentOfQwen3_235B_Tp8Log) {
  // Logged: activations 1.40, CUDA graphs 3.45, non-torch 0.21 GiB (TP8, FP8 weights 27.72 GiB).
  BudgetInputs in;
  in.total_gib = 44.42;
  in.tp = 8;
  in.weight_dtype = "fp8";
  const auto b = estimate_budget(test::model("qwen3-235b-a22b"), in);
  EXPECT_NEAR(b.activation_gib, 1.40, 1.40 * 0.15);
  EXPECT_NEAR(b.cuda_graph_gib, 3.45, 3.45 * 0.15);
  EXPECT_NEAR(b.non_torch_gib, 0.21, 0.21 * 0.15);
  EXPECT_NEAR(b.weights_gib, 27.72, 27.72 * 0.05);  // 235B x 1 B / 8
}

TEST(MemoryBudget, TermsAddUpAndKvCacheMemoryReplacesThem) {
  BudgetInputs in;
  in.total_gib = 79.19;
  const auto b = estimate_budget(test::model("llama-3.1-8b"), in);
  const double sum =
      b.total_gib * 0.9 - b.weights_gib - b.activation_gib - b.cuda_graph_gib - b.non_torch_gib;
  EXPECT_NEAR(b.available_bytes / kGiB, sum, 1e-9);
  in.kv_cache_memory_bytes = 1u << 30;
  EXPECT_DOUBLE_EQ(estimate_budget(test::model("llama-3.1-8b"), in).available_bytes, kGiB);
}

// --kv-cache-memory still shares the GPU with the weights: by hand for llama-3.1-8b on an h100
// (79.19 GiB): weights 8.03e9 x 2 B = 14.957 GiB, activations 20 x 8192 x 4096 x 2 B = 1.25 GiB,
// graphs 32 x 0.0171 = 0.547 GiB, non-torch 0.06 GiB: 16.81 GiB beside the KV cache.
TEST(MemoryBudget, KvCacheMemoryBeyondWhatTheGpuHoldsBesideTheWeightsIsFlagged) {
  BudgetInputs in;
  in.total_gib = 79.19;
  in.max_num_batched_tokens = 8192;
  in.kv_cache_memory_bytes = std::uint64_t{100} << 30;
  const auto b = estimate_budget(test::model("llama-3.1-8b"), in);
  const double rest = 8.03e9 * 2 / kGiB + 20.0 * 8192 * 4096 * 2 / kGiB + 32 * 0.0171 + 0.06;
  EXPECT_NEAR(b.exceeds_gpu_gib, rest + 100 - 79.19, 0.01);
  EXPECT_NEAR(b.exceeds_gpu_gib, 37.62, 0.01);
  in.kv_cache_memory_bytes = std::uint64_t{8} << 30;
  EXPECT_EQ(estimate_budget(test::model("llama-3.1-8b"), in).exceeds_gpu_gib, 0.0);
  // Weights alone beyond the GPU: nothing is available, whatever the KV cache asked for.
  in.total_gib = 10;
  EXPECT_LT(estimate_budget(test::model("llama-3.1-8b"), in).available_bytes, 0);
}

// vLLM 0.23.0 logged 18,038 GPU blocks for Qwen3-14B on one H100 80GB HBM3 (residency-vllm's
// server_config.json, its README: gpu-memory-utilization 0.90). By hand: one 16-token block is
// 40 layers x 2 (K, V) x 8 KV heads x 128 x 2 B x 16 = 2,621,440 B, so the pool is 44.04 GiB; the
// BF16 weights are 14.77e9 x 2 B = 27.51 GiB. Together 71.55 GiB, above 0.90 x 79.19 GiB = 71.27 GiB
// before any activation, CUDA graph or non-torch memory: no budget of the form vLLM documents lands
// on that count at 0.90 (issue 22 §6), so kvbench keeps its estimate and says why it differs.
TEST(MemoryBudget, ResidencyLoggedPoolDoesNotFitUtilizationPointNine) {
  const auto m = test::model("qwen3-14b");
  BudgetInputs in;
  in.total_gib = 79.19;
  const auto b = estimate_budget(m, in);
  const double block_bytes = 40.0 * 2 * 8 * 128 * 2 * 16;
  EXPECT_DOUBLE_EQ(block_bytes, 2621440.0);
  const double logged_pool_gib = 18038 * block_bytes / kGiB;
  EXPECT_NEAR(logged_pool_gib, 44.04, 0.01);
  EXPECT_NEAR(b.weights_gib, 27.51, 0.1);  // the catalog counts 14.8e9 parameters (27.57 GiB)
  EXPECT_GT(logged_pool_gib + b.weights_gib, 0.90 * in.total_gib);
  // The utilization the logged pool implies with kvbench's overheads (2.3 GiB here): about 0.93.
  const double implied =
      (logged_pool_gib + b.weights_gib + b.activation_gib + b.cuda_graph_gib + b.non_torch_gib) /
      in.total_gib;
  EXPECT_NEAR(implied, 0.932, 0.005);
}
