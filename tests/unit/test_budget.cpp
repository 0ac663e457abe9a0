// The overhead model against the two published vLLM budget breakdowns (REFERENCE section 1).
// Weights are not compared: those checkpoints' exact byte counts are not in the catalog.
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
  const double sum = b.total_gib * 0.9 - b.weights_gib - b.activation_gib - b.cuda_graph_gib - b.non_torch_gib;
  EXPECT_NEAR(b.available_bytes / kGiB, sum, 1e-9);
  in.kv_cache_memory_bytes = 1u << 30;
  EXPECT_DOUBLE_EQ(estimate_budget(test::model("llama-3.1-8b"), in).available_bytes, kGiB);
}
