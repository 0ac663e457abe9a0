// size's reload-versus-recompute figures, and the property the one time model exists for: `size`
// and `simulate` give the same time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "perf/calibration.hpp"
#include "perf/link_curve.hpp"
#include "perf/step_time_model.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "size/reload_vs_recompute.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(ReloadVsRecompute, SlowLinkMovesBreakEvenOut) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 131072;
  const auto s = compute_sizing(in);
  LinkCurve fast, slow;
  fast.gbps = 50;
  fast.per_copy_s = kDefaultPerCopySeconds;
  slow.gbps = 2;
  slow.per_copy_s = kDefaultPerCopySeconds;
  const auto with_link = [&](const LinkCurve& h2d) {
    auto given = in;
    given.link = LinkProfile{};
    given.link->h2d = h2d;
    return compare_reload_recompute(s, given);
  };
  const auto f = with_link(fast);
  const auto w = with_link(slow);
  EXPECT_TRUE(w.link_given);
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
// that request alone (its prefill, chunked the same way, on the same hardware and calibration),
// less the calibration's per-request cost outside the GPU (the API server), which reloading pays too.
TEST(ReloadVsRecompute, RecomputeTimeIsTheSimulatorsTtftForTheSameRequest) {
  for (const auto& [tokens, chunk] : {std::pair{6000, 2048}, std::pair{16000, 8192}}) {
    auto in = test::inputs("llama-3.1-8b");
    in.calibration = default_calibration(in.hw);  // what size and simulate both use on the h100
    in.max_model_len = tokens;
    in.max_num_batched_tokens = chunk;
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
    EXPECT_GT(in.calibration.request_overhead_s, 0);  // the h100's: the subtraction below is not of zero
    // The simulator's clock takes the overhead and each prefill chunk rounded to the nanosecond.
    const double rounding = 0.5e-9 * static_cast<double>((tokens + chunk - 1) / chunk + 1);
    EXPECT_NEAR(s.reload->recompute_s + in.calibration.request_overhead_s, r.ttft_s.p50,
                1e-9 * r.ttft_s.p50 + rounding)
        << tokens << " tokens";
  }
}
