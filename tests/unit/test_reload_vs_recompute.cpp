#include <gtest/gtest.h>

#include "size/reload_vs_recompute.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(ReloadModel, BytesOverBandwidthPlusPerCopyCost) {
  ReloadModel r;
  r.block_size = 16;
  r.block_bytes = 2.0 * 1024 * 1024;
  r.link_bytes_per_second = 50e9;
  r.per_copy_seconds = 4e-6;
  // 1000 blocks: 1000 x (4 us + 2 MiB / 50 GB/s).
  EXPECT_NEAR(r.seconds(16000), 1000 * (4e-6 + 2.0 * 1024 * 1024 / 50e9), 1e-12);
  EXPECT_NEAR(r.seconds(1), 4e-6 + 2.0 * 1024 * 1024 / 50e9, 1e-12);  // a partial block is one copy
}

TEST(RecomputeModel, LinearPlusCausalAttentionFlops) {
  const auto m = test::model("llama-3.1-8b");
  const auto hw = resolve_hardware("h100");
  const auto rm = recompute_model(m, hw, 1, 1, "bf16", 0.5);
  EXPECT_DOUBLE_EQ(rm.linear_flops_per_token, 2 * 8.03e9);
  EXPECT_DOUBLE_EQ(rm.quadratic_flops, 32.0 * 32 * (128 + 128));
  const double l = 100000;
  EXPECT_NEAR(rm.seconds(100000), (2 * 8.03e9 * l + 32.0 * 32 * 256 * l * l) / (989e12 * 0.5), 1e-9);
  // Never faster than one read of the weights: 16.06 GB at 3.35 TB/s.
  EXPECT_NEAR(rm.seconds(1), 8.03e9 * 2 / 3350e9, 1e-9);
}

TEST(ReloadVsRecompute, SlowLinkMovesBreakEvenOut) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 131072;
  const auto s = compute_sizing(in);
  const auto fast = compare_reload_recompute(s, in, 50, "test");
  const auto slow = compare_reload_recompute(s, in, 2, "test");
  ASSERT_TRUE(fast.break_even_tokens);
  ASSERT_TRUE(slow.break_even_tokens);
  EXPECT_LT(*fast.break_even_tokens, *slow.break_even_tokens);
  // At the break-even length reloading is faster, just below it it is not.
  ReloadModel r;
  r.block_size = 16;
  r.block_bytes = 16.0 * 131072;
  r.link_bytes_per_second = 2e9;
  const auto rm = recompute_model(in.model, in.hw, 1, 1, "bf16", 0.5);
  EXPECT_LT(r.seconds(*slow.break_even_tokens), rm.seconds(*slow.break_even_tokens));
  EXPECT_GE(r.seconds(*slow.break_even_tokens * 96 / 100), rm.seconds(*slow.break_even_tokens * 96 / 100));
}
