// The CPU tier against vLLM's formulas (vllm/v1/kv_offload/cpu/spec.py), computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/units.hpp"
#include "size/offload_plan.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(OffloadPlan, CpuBlocksFollowSpecPy) {
  // Llama-3.1-70B at TP 4: per rank 80 layers x 2 x 2 heads x 128 x 2 B = 81,920 B/token;
  // one 16-token block per rank is 1,310,720 B; a CPU block spans 4 ranks: 5,242,880 B.
  auto in = test::inputs("llama-3.1-70b", "h100", 4);
  in.max_model_len = 32768;
  in.kv_offloading_size_gib = 100;
  const auto s = compute_sizing(in);
  ASSERT_TRUE(s.offload);
  EXPECT_EQ(s.offload->cpu_block_bytes, 5'242'880);
  EXPECT_EQ(s.offload->given_num_cpu_blocks, static_cast<std::int64_t>(100 * kGiB / 5'242'880.0));
  EXPECT_EQ(s.offload->given_cpu_tokens, s.offload->given_num_cpu_blocks * 16);
  // Each rank pins its share of the recommended total.
  EXPECT_DOUBLE_EQ(s.offload->pinned_gib_per_rank, s.offload->recommended_gib() / 4.0);
}

TEST(OffloadPlan, ReplicatedMlaStoresOneCopyPerRank) {
  auto one = test::inputs("deepseek-v3", "h200", 8);
  one.max_model_len = 32768;
  const auto s = compute_sizing(one);
  ASSERT_TRUE(s.offload);
  // 61 layers x 1,152 B x 64 tokens per block x 8 ranks.
  EXPECT_EQ(s.offload->cpu_block_bytes, 61LL * 1152 * 64 * 8);
}

TEST(OffloadPlan, ConcurrencySetsSizeAndHostDramCaps) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 131072;
  in.concurrency = 10;
  in.host_memory_gb = 4096;  // cap: 4096 GB x 0.6 / 8 GPUs = 286 GiB
  const auto s = compute_sizing(in);
  ASSERT_TRUE(s.offload);
  // 10 sessions x 131,072 tokens x 131,072 B = 160 GiB exactly.
  EXPECT_EQ(s.offload->recommended_gib(), 160);
  EXPECT_FALSE(s.offload->capped);
  in.concurrency = 1000;
  in.host_memory_gb = 512;
  const auto capped = compute_sizing(in);
  // One of 8 GPUs: 512 GB x 0.6 / 8 = 38.4 GB = 35.76 GiB -> 35.
  EXPECT_TRUE(capped.offload->capped);
  EXPECT_EQ(capped.offload->recommended_gib(), static_cast<int>(std::floor(512e9 * 0.6 / 8 / kGiB)));
}

TEST(OffloadPlan, DefaultKeepsTwiceTheGpuSessions) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 32768;
  const auto s = compute_sizing(in);
  EXPECT_EQ(s.offload->sessions, static_cast<int>(std::ceil(2 * s.max_concurrency)));
  // The tier must exceed the GPU pool it copies.
  EXPECT_GT(s.offload->recommended_gib() * kGiB, static_cast<double>(s.num_gpu_blocks) * 16 * 131072);
}

TEST(OffloadPlan, RuleIsRaisedToVllmsFloorTheGpuPool) {
  // One 32,768-token session of Llama-3.1-8B is 32,768 x 131,072 B = 4 GiB: far below the GPU
  // pool (num_gpu_blocks x 2 MiB), which a write-through tier must exceed to hold anything more.
  auto in = test::inputs("llama-3.1-8b", "h100");
  in.max_model_len = 32768;
  in.concurrency = 1;
  const auto s = compute_sizing(in);
  ASSERT_TRUE(s.offload);
  const auto& rec = s.offload->recommendation;
  const double floor_gib = static_cast<double>(s.num_gpu_blocks) * 2.0 * 1024 * 1024 / kGiB;
  EXPECT_DOUBLE_EQ(s.offload->floor_gib, floor_gib);
  EXPECT_GT(floor_gib, 4.0);
  EXPECT_EQ(s.offload->recommended_gib(), static_cast<int>(std::floor(floor_gib)) + 1);
  EXPECT_EQ(rec.basis, RecommendationBasis::kRule);
  EXPECT_EQ(rec.bound, TierBound::kFloor);
  // Pinning at every start: the H100 machine's 32 GiB rows, 8.25 s and 12.633 s.
  EXPECT_NEAR(rec.pin_seconds_low, s.offload->recommended_gib() * 8.25 / 32, 1e-9);
  EXPECT_NEAR(rec.pin_seconds_high, s.offload->recommended_gib() * 12.633 / 32, 1e-9);
}
