// size's reload-versus-recompute figures: hand calculations of perf's link curve and step model,
// and the property the one time model exists for: `size` and `simulate` give the same time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "perf/link_curve.hpp"
#include "perf/step_time_model.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "size/reload_vs_recompute.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(LinkCurve, BytesOverBandwidthPlusPerCopyCost) {
  LinkCurve c;
  c.gbps = 50;
  c.per_copy_s = 4e-6;
  const double block = 2.0 * 1024 * 1024;
  // 1000 blocks: 1000 x (4 us + 2 MiB / 50 GB/s).
  EXPECT_NEAR(c.seconds(1000, block), 1000 * (4e-6 + block / 50e9), 1e-12);
  EXPECT_NEAR(c.seconds(1, block), 4e-6 + block / 50e9, 1e-12);
  EXPECT_EQ(c.seconds(0, block), 0.0);
}

TEST(StepTimeModel, PrefillInOneChunkIsOneRooflineStep) {
  const auto m = test::model("llama-3.1-8b");
  const auto hw = resolve_hardware("h100");
  const StepTimeModel steps(m, hw, 131072, 1, "bf16", Calibration{});
  // Llama-3.1-8B (8.03B params, 32 layers, 32 heads of 128) on H100 (989 TFLOP/s, 3350 GB/s) at
  // the default 50% compute, 75% HBM, 500 us per step; 4096 tokens, causal pairs L(L+1)/2.
  const double l = 4096;
  const double flops = 2 * 8.03e9 * l + 2.0 * 32 * (128 + 128) * 32 * l * (l + 1) / 2;
  const double bytes = 8.03e9 * 2 + 131072.0 * l;
  EXPECT_NEAR(steps.prefill_seconds(4096, 8192), std::max(flops / (989e12 * 0.5), bytes / (3350e9 * 0.75)) + 500e-6,
              1e-12);
}

TEST(StepTimeModel, ChunksPayTheirOverheadAndAttendToEarlierChunks) {
  const auto m = test::model("llama-3.1-8b");
  const StepTimeModel steps(m, resolve_hardware("h100"), 131072, 1, "bf16", Calibration{});
  // Two chunks of 2048: the second's 2048 queries each see the first 2048 keys too. Both are
  // compute-bound (checked above for a larger chunk), so the sum has a closed form.
  const double k = 2048;
  const double linear = 2 * 8.03e9 * 2 * k;
  const double pair_flops = 2.0 * 32 * (128 + 128) * 32;
  const double pairs = k * (k + 1) / 2 + (k * k + k * (k + 1) / 2);
  const double expected = (linear + pair_flops * pairs) / (989e12 * 0.5) + 2 * 500e-6;
  EXPECT_NEAR(steps.prefill_seconds(4096, 2048), expected, 1e-12);
  EXPECT_GT(steps.prefill_seconds(4096, 2048), steps.prefill_seconds(4096, 4096));
}

TEST(ReloadVsRecompute, SlowLinkMovesBreakEvenOut) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 131072;
  const auto s = compute_sizing(in);
  LinkCurve fast, slow;
  fast.gbps = 50;
  fast.per_copy_s = kDefaultPerCopySeconds;
  slow.gbps = 2;
  slow.per_copy_s = kDefaultPerCopySeconds;
  const auto f = compare_reload_recompute(s, in, fast, "test");
  const auto w = compare_reload_recompute(s, in, slow, "test");
  ASSERT_TRUE(f.break_even_tokens);
  ASSERT_TRUE(w.break_even_tokens);
  EXPECT_LT(*f.break_even_tokens, *w.break_even_tokens);
  // At the break-even length reloading is faster, a few percent below it it is not.
  const double block_bytes = 16.0 * 131072;
  const StepTimeModel steps(in.model, in.hw, 131072, 1, "bf16", Calibration{});
  const auto reload = [&](std::int64_t t) { return slow.seconds((t + 15) / 16, block_bytes); };
  const auto recompute = [&](std::int64_t t) { return steps.prefill_seconds(t, 8192); };
  EXPECT_LT(reload(*w.break_even_tokens), recompute(*w.break_even_tokens));
  EXPECT_GE(reload(*w.break_even_tokens * 96 / 100), recompute(*w.break_even_tokens * 96 / 100));
}

// The reason for one time model: size's recompute time for a request is the simulator's TTFT for
// that request alone (its prefill, chunked the same way, on the same hardware and calibration).
TEST(ReloadVsRecompute, RecomputeTimeIsTheSimulatorsTtftForTheSameRequest) {
  for (const auto& [tokens, chunk] : {std::pair{6000, 2048}, std::pair{16000, 8192}}) {
    auto in = test::inputs("llama-3.1-8b");
    in.max_model_len = tokens;
    in.kv.max_num_batched_tokens = chunk;
    const auto s = compute_sizing(in);
    ASSERT_TRUE(s.reload);
    const auto scenario = parse_scenario(fmt::format(R"(
model: llama-3.1-8b
hardware: h100
max-model-len: {2}
max-num-batched-tokens: {1}
workload:
  requests: 1
  arrival: {{process: fixed, rate: 1}}
  prompt: {0}
  output: 1
)",
                                                     tokens, chunk, tokens + 1),  // room for the output token
                                         "test.yaml");
    const auto r = run_simulation(prepare_simulation(scenario, std::nullopt), {});
    ASSERT_EQ(r.finished, 1);
    EXPECT_NEAR(s.reload->recompute_s, r.ttft_s.p50, 1e-9 * r.ttft_s.p50) << tokens << " tokens";
  }
}
