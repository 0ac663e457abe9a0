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

// The public L40S study's servers: two L40S (44.39 GiB each) at TP 2, 2,048 batched tokens (vLLM's
// default under 70 GiB) and its --max-num-seq 1024.
BudgetInputs l40s_study_server(VllmVersion version) {
  BudgetInputs in;
  in.total_gib = 44.39;
  in.tp = 2;
  in.max_num_batched_tokens = 2048;
  in.max_num_seqs = 1024;
  in.vllm_version = version;
  return in;
}
// A server at 8,192 batched tokens and 256 sequences, as the logs below ran (their activation
// figures are the 8,192-token forward pass's): the forward pass, not the sampler's warm-up, is
// the profile's peak. BudgetInputs has no batch defaults of its own: a sizing fills them from its
// server (vLLM's defaults on the GPU, or the flags).
BudgetInputs at_8192_tokens(double total_gib) {
  BudgetInputs in;
  in.total_gib = total_gib;
  in.max_num_batched_tokens = 8192;
  in.max_num_seqs = 256;
  return in;
}
}  // namespace

TEST(MemoryBudget, OverheadsWithin15PercentOfQwen25_7BLog) {
  // Logged: activations 1.04, CUDA graphs 0.48, non-torch 0.06 GiB (TP1).
  auto in = at_8192_tokens(15.99);
  in.weight_dtype = "int4";
  const auto b = estimate_budget(qwen25_7b(), in);
  EXPECT_NEAR(b.activation_gib, 1.04, 1.04 * 0.15);
  EXPECT_NEAR(b.cuda_graph_gib, 0.48, 0.48 * 0.15);
  EXPECT_NEAR(b.non_torch_gib, 0.06, 0.06 * 0.15);
}

TEST(MemoryBudget, OverheadsWithin15PercentOfQwen3_235B_Tp8Log) {
  // Logged: activations 1.40, CUDA graphs 3.45, non-torch 0.21 GiB (TP8, FP8 weights 27.72 GiB).
  auto in = at_8192_tokens(44.42);
  in.tp = 8;
  in.weight_dtype = "fp8";
  const auto b = estimate_budget(test::model("qwen3-235b-a22b"), in);
  EXPECT_NEAR(b.activation_gib, 1.40, 1.40 * 0.15);
  EXPECT_NEAR(b.cuda_graph_gib, 3.45, 3.45 * 0.15);
  EXPECT_NEAR(b.non_torch_gib, 0.21, 0.21 * 0.15);
  EXPECT_NEAR(b.weights_gib, 27.72, 27.72 * 0.05);  // 235B x 1 B / 8
}

TEST(MemoryBudget, TermsAddUpAndKvCacheMemoryReplacesThem) {
  auto in = at_8192_tokens(79.19);
  const auto b = estimate_budget(test::model("llama-3.1-8b"), in);
  // The CUDA graphs are captured after the KV cache is sized, in the headroom: not subtracted.
  const double sum = b.total_gib * 0.9 - b.weights_gib - b.activation_gib - b.non_torch_gib;
  EXPECT_NEAR(b.available_bytes / kGiB, sum, 1e-9);
  EXPECT_GT(b.cuda_graph_gib, 0.5);
  in.kv_cache_memory_bytes = 1u << 30;
  EXPECT_DOUBLE_EQ(estimate_budget(test::model("llama-3.1-8b"), in).available_bytes, kGiB);
}

// --kv-cache-memory still shares the GPU with the weights: by hand for llama-3.1-8b on an h100
// (79.19 GiB): weights 8.03e9 x 2 B = 14.957 GiB, activations 20 x 8192 x 4096 x 2 B = 1.25 GiB,
// graphs 32 x 0.0171 = 0.547 GiB, non-torch 0.06 GiB: 16.81 GiB beside the KV cache.
TEST(MemoryBudget, KvCacheMemoryBeyondWhatTheGpuHoldsBesideTheWeightsIsFlagged) {
  auto in = at_8192_tokens(79.19);
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
  auto in = at_8192_tokens(79.19);
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

// The sampler's warm-up by hand: Qwen3-8B (vocab 151,936) served with --max-num-seq 1024 and 2,048
// batched tokens warms 1,024 requests up. vLLM 0.15 sorts for top-k/top-p: 1024 x 151936 x 39 B =
// 5.651 GiB; 0.19 filters with a Triton kernel: x 14 B = 2.029 GiB. Either is above the forward
// pass's 20 x 2048 x 4096 x 2 B = 0.3125 GiB, so it is the profile's peak; at 256 sequences and
// 8,192 tokens the forward pass (1.25 GiB) stays the peak.
TEST(MemoryBudget, SamplerWarmupIsThePeakForManySequencesOverALargeVocabulary) {
  auto in = l40s_study_server(VllmVersion{0, 15, 1});
  const auto m = test::model("qwen3-8b");
  const auto sorted = estimate_budget(m, in);
  EXPECT_EQ(sorted.sampler.requests, 1024);
  EXPECT_NEAR(sorted.sampler.gib, 5.651, 0.001);
  EXPECT_NEAR(sorted.activation_gib, 0.3125, 1e-6);
  EXPECT_NEAR(sorted.profile_peak_gib(), 5.651, 0.001);
  in.vllm_version = VllmVersion{0, 19, 1};
  EXPECT_NEAR(estimate_budget(m, in).sampler.gib, 2.029, 0.001);
  EXPECT_NEAR(estimate_budget(m, in).available_bytes - sorted.available_bytes, (5.651 - 2.029) * kGiB,
              0.002 * kGiB);
  in.max_num_seqs = 256;
  in.max_num_batched_tokens = 8192;
  const auto usual = estimate_budget(m, in);
  EXPECT_NEAR(usual.profile_peak_gib(), 1.25, 1e-6);
}

// The pools vLLM 0.11.2 logged for Qwen3 at TP 2 on 2x L40S, --max-num-seq 1024, gpu-memory-utilization
// 0.9 (natoscott/benchmarks, llm-d-kvcache-offload-eval/REPORT-v0.4.0.md: 33.92, 26.83 and 20.58 GiB of
// KV per GPU for 0.6B, 8B and 14B): without the sampler's warm-up the estimate left 4.4-4.7 GiB per
// rank unaccounted (14-22% too many tokens). With it at 39 B a logit (fitted on other logs: the
// H100 study's, tests/unit/size/test_logged_kv_capacity.cpp) and no CUDA graphs in the budget,
// within 0.3 GiB of each (Qwen3-8B by hand: 39.95 - 7.63 weights - 5.65 sampler - 0.08 = 26.59).
TEST(MemoryBudget, LoggedL40sPoolsWithTheSamplerWarmup) {
  const auto in = l40s_study_server(VllmVersion{0, 11, 2});
  const std::pair<const char*, double> logged[] = {
      {"qwen3-0.6b", 33.92}, {"qwen3-8b", 26.83}, {"qwen3-14b", 20.58}};
  for (const auto& [name, gib] : logged) {
    const auto b = estimate_budget(test::model(name), in);
    EXPECT_NEAR(b.available_bytes / kGiB, gib, 0.3) << name;
  }
}
