// Two public vLLM log lines the engine must reproduce exactly (vllm-project/vllm issue 10517,
// LMCache/LMCache issue 1739).
#include <gtest/gtest.h>

#include <cmath>

#include "core/units.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(PublicVllmLogs, Llama31_8B_Issue10517) {
  // 1952 blocks of 16 tokens were available (3.81 GiB); max_model_len 20,000.
  // vLLM logged: 31,232 tokens, maximum concurrency 1.56x.
  auto in = test::inputs("llama-3.1-8b");
  in.kv_cache_memory_bytes = 1952ULL * 16 * 131072;  // 1952 blocks x 2 MiB
  in.max_model_len = 20000;
  const auto s = compute_sizing(in);
  EXPECT_EQ(s.num_gpu_blocks, 1952);
  EXPECT_EQ(s.gpu_kv_tokens, 31232);
  EXPECT_EQ(std::round(s.max_concurrency * 100) / 100, 1.56);
  EXPECT_TRUE(s.fits);
}

TEST(PublicVllmLogs, Qwen3_14B_LMCacheIssue1739) {
  // 6.51 GiB available, max_model_len 32,768: vLLM logged 42,656 tokens and 1.30x.
  auto in = test::inputs("qwen3-14b");
  in.kv_cache_memory_bytes = static_cast<std::uint64_t>(6.51 * kGiB);
  in.max_model_len = 32768;
  const auto s = compute_sizing(in);
  EXPECT_EQ(s.gpu_kv_tokens, 42656);
  EXPECT_EQ(std::round(s.max_concurrency * 100) / 100, 1.30);
}

TEST(PublicVllmLogs, RefusalGivesEstimatedMaxModelLen) {
  // With 1952 blocks of 16 tokens, at most 31,232 tokens fit: vLLM's estimate for a 40k request.
  auto in = test::inputs("llama-3.1-8b");
  in.kv_cache_memory_bytes = 1952ULL * 16 * 131072;
  in.max_model_len = 40000;
  const auto s = compute_sizing(in);
  EXPECT_FALSE(s.fits);
  EXPECT_EQ(s.estimated_max_model_len, 31232);
  EXPECT_NEAR(s.kv_gib_needed_per_request, 2500.0 * 2 / 1024, 1e-9);  // cdiv(40000,16) x 2 MiB
}
