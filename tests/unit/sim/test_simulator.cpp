// The simulation end to end: closed forms, conservation laws, invariants, determinism and the
// effects that must be monotone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "output/simulate/sim_document.hpp"
#include "output/simulate/sim_output.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "sim/sweep.hpp"

namespace kvb {
namespace {

Scenario scenario(const std::string& yaml) { return parse_scenario(yaml, "test.yaml"); }

// The generic calibration, stated, so the hand calculations below do not follow the h100 file's
// fitted figures.
const char* kLoneRequest = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
workload:
  requests: 1
  arrival: {process: fixed, rate: 1}
  prompt: 1000
  output: 1
)";

TEST(Simulator, LoneRequestTtftIsItsPrefillTime) {
  const auto setup = prepare_simulation(scenario(kLoneRequest), std::nullopt);
  const auto r = run_simulation(setup, {});
  // Hand calculation for Llama-3.1-8B (8.03B params, 32 layers, 32 heads of 128) on H100
  // (989 TFLOP/s bf16, 3350 GB/s), defaults: 50% of peak compute, 75% of HBM, 500 us/step.
  const double p = 1000;
  const double flops = 2 * 8.03e9 * p + 2.0 * 32 * (128 + 128) * 32 * p * (p + 1) / 2;
  const double bytes = 8.03e9 * 2 + 131072.0 * p;  // weights once; 128 KiB of KV written per token
  // The elementwise kernels per token: 2 B x 32 layers x (8 x 4096 + 2 x (4096 + 1024) + 3 x 14336).
  const double elementwise = p * 2 * 32 * (8 * 4096 + 2 * (4096 + 1024) + 3 * 14336) / (3350e9 * 0.75);
  const double expected = std::max(flops / (989e12 * 0.5), bytes / (3350e9 * 0.75)) + elementwise + 500e-6;
  ASSERT_EQ(r.finished, 1);
  EXPECT_NEAR(r.ttft_s.p50, expected, 1e-9);
  EXPECT_NEAR(r.e2e_s.p50, expected, 1e-9);  // one output token: done with the prefill
  EXPECT_EQ(r.scheduled_tokens, 1000);
}

TEST(Simulator, ChunkedPrefillSplitsAtTheTokenBudget) {
  auto s = with_override(scenario(kLoneRequest), "workload.prompt", "5000", "test");
  s = with_override(s, "max-num-batched-tokens", "2048", "test");
  const auto r = run_simulation(prepare_simulation(s, std::nullopt), {});
  EXPECT_EQ(r.steps, 3);  // 2048 + 2048 + 904
  EXPECT_EQ(r.scheduled_tokens, 5000);
}

const char* kReload = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
kv-offloading-size: 8
tier-costs: none                # the copy alone (its costs to the engine: test_tier_costs.cpp)
workload:
  requests: 2
  arrival: {process: fixed, rate: 0.5}
  documents: 1
  document-tokens: 4096
  prompt: 1
  output: 1
  reset-prefix-cache: true
)";

TEST(Simulator, ReloadTakesBytesOverBandwidthPlusPerCopyCost) {
  const auto setup = prepare_simulation(scenario(kReload), std::nullopt);
  SimOptions check;
  check.check_invariants = true;
  const auto r = run_simulation(setup, check);
  ASSERT_EQ(r.finished, 2);
  EXPECT_EQ(r.loads, 1);
  EXPECT_EQ(r.cpu_hit_tokens, 4096);
  EXPECT_EQ(r.gpu_hit_tokens, 0);  // the GPU prefix cache was reset before the second request
  // Second request: 256 blocks of 2 MiB reloaded over the H100's measured h2d link (54.06 GB/s,
  // 2.724 us per copy; scenarios/hardware/h100.yaml), then one token computed against 4096
  // tokens of context.
  const double block = 16 * 131072.0;
  const double load = 256 * (2.724e-6 + block / 54.06e9);
  const double flops = 2 * 8.03e9 + 2.0 * 32 * 256 * 32 * 4097;
  const double bytes = 8.03e9 * 2 + 131072.0 * 4097;
  const double elementwise = 2 * 32 * (8 * 4096 + 2 * (4096 + 1024) + 3 * 14336) / (3350e9 * 0.75);
  const double step = std::max(flops / (989e12 * 0.5), bytes / (3350e9 * 0.75)) + elementwise + 500e-6;
  // TTFT of the warm request is the smaller of the two.
  EXPECT_NEAR(r.ttft_s.min, load + step, 1e-9);
  EXPECT_NEAR(r.h2d_bytes, 256 * block, 1e-3);
}

TEST(Simulator, ZeroSizeTierEqualsNoOffloading) {
  auto base = load_scenario("chat-multi-turn");
  base = with_override(base, "workload.requests", "400", "test");
  const auto off = run_simulation(prepare_simulation(base, std::nullopt));
  const auto zero = run_simulation(
      prepare_simulation(with_override(base, "kv-offloading-size", "0", "test"), std::nullopt));
  EXPECT_EQ(off.steps, zero.steps);
  EXPECT_EQ(off.makespan_s, zero.makespan_s);
  EXPECT_EQ(off.ttft_s.p99, zero.ttft_s.p99);
  EXPECT_EQ(off.preemptions, zero.preemptions);
  EXPECT_EQ(zero.cpu_hit_tokens, 0);
  EXPECT_EQ(zero.d2h_bytes, 0.0);
}

TEST(Simulator, SameInputsSameOutputByteForByte) {
  auto s = load_scenario("doc-qa");
  s = with_override(s, "workload.requests", "300", "test");
  const std::vector<SweepAxis> axes{{"kv-offloading-size", {"0", "16"}}};
  const auto a = simulate_json(run_sweep(s, axes, std::nullopt, {})).dump();
  const auto b = simulate_json(run_sweep(s, axes, std::nullopt, {})).dump();
  EXPECT_EQ(a, b);
  const auto other_seed =
      simulate_json(run_sweep(with_override(s, "seed", "12", "test"), axes, std::nullopt, {})).dump();
  EXPECT_NE(a, other_seed);
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, InvariantsHoldAndTokensAreConserved) {
  auto s = load_scenario(GetParam());
  s = with_override(s, "workload.requests", std::to_string(std::min<std::int64_t>(s.workload.requests, 60)),
                    "test");
  for (const char* size : {"null", "4"}) {
    const auto point = with_override(s, "kv-offloading-size", size, "test");
    const auto setup = prepare_simulation(point, std::nullopt);
    SimOptions check;
    check.check_invariants = true;  // block ownership and CPU capacity after every step
    const auto r = run_simulation(setup, check);
    EXPECT_EQ(r.finished, r.requests);
    EXPECT_EQ(r.requests, s.workload.requests);
    // Every token but each request's last is processed once, or came from a cache, or was redone.
    EXPECT_EQ(r.scheduled_tokens, r.prompt_tokens + r.output_tokens - r.requests - r.gpu_hit_tokens -
                                      r.cpu_hit_tokens + r.recomputed_tokens);
    EXPECT_LE(r.cpu_tier_peak_blocks, setup.cpu_blocks);
    EXPECT_LE(r.kv_occupancy_peak, 1.0);
    if (!setup.offloading) {
      EXPECT_EQ(r.cpu_hit_tokens, 0);
      EXPECT_EQ(r.h2d_bytes + r.d2h_bytes, 0.0);
    }
  }
}

// The CPU tier's hit rate is what must be monotone. The total (GPU + CPU) need not be: stores
// hold a finished request's GPU blocks until written, and a tier too small to hit still adds
// that pressure (doc-qa at 4 GiB loses 0.5 points of GPU hits).
TEST_P(ShippedScenario, LargerLruTierNeverLowersTheCpuHitRate) {
  auto s = load_scenario(GetParam());
  s = with_override(s, "workload.requests", std::to_string(std::min<std::int64_t>(s.workload.requests, 400)),
                    "test");
  double previous = -1;
  for (const char* gib : {"0", "4", "16", "64", "256"}) {
    const auto r =
        run_simulation(prepare_simulation(with_override(s, "kv-offloading-size", gib, "test"), std::nullopt));
    const double hit = r.cpu_hit_rate;
    EXPECT_GE(hit, previous - 1e-12) << GetParam() << " at " << gib << " GiB";
    previous = hit;
  }
}

INSTANTIATE_TEST_SUITE_P(All, ShippedScenario,
                         ::testing::Values("chat-multi-turn", "doc-qa", "bursty-long-context",
                                           "ttft-reload"));

TEST(Simulator, TinyPoolPreemptsAndRecomputes) {
  auto s = load_scenario("bursty-long-context");
  s = with_override(s, "workload.requests", "60", "test");
  const auto r = run_simulation(prepare_simulation(s, std::nullopt));
  EXPECT_GT(r.preemptions, 0);
  EXPECT_GT(r.recomputed_tokens, 0);
}

TEST(Simulator, OffloadingTurnsGpuMissesIntoCpuHitsOnChat) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", "600", "test");
  const auto off = run_simulation(prepare_simulation(s, std::nullopt));
  const auto on =
      run_simulation(prepare_simulation(with_override(s, "kv-offloading-size", "64", "test"), std::nullopt));
  EXPECT_GT(on.cpu_hit_rate, 0.05);
  EXPECT_LT(on.ttft_s.p99, off.ttft_s.p99);
  EXPECT_GT(on.d2h_bytes, 0.0);
}

TEST(Simulator, ImpossibleConfigurationsAreUsageErrors) {
  // 1 GiB of KV holds 8,192 tokens: a 128K max-model-len cannot start, as vLLM refuses it.
  const auto small = with_override(scenario(kLoneRequest), "kv-cache-memory", "1GiB", "t");
  EXPECT_THROW(prepare_simulation(with_override(small, "max-model-len", "131072", "t"), std::nullopt),
               UsageError);
  EXPECT_THROW(
      prepare_simulation(with_override(scenario(kLoneRequest), "model", "llama-405b", "t"), std::nullopt),
      UsageError);  // 405B bf16 weights on one H100
}

TEST(Simulator, EveryRequestFinishesWhenLoadedRequestsHoldThePool) {
  // The coding agent at 32 GiB: a step whose running requests preempt one another ends up empty
  // while loaded requests hold the pool. The scheduler used to wait for the next event, and with
  // no arrivals left none came: 13 of 1,071 requests never finished.
  auto s = with_override(load_scenario("coding-agent"), "kv-offloading-size", "32", "test");
  s = with_override(s, "workload.requests", "1200", "test");
  const auto r = run_simulation(prepare_simulation(s, std::nullopt), {});
  EXPECT_EQ(r.finished, r.requests);
  EXPECT_GT(r.preemptions, 0);
  EXPECT_GT(r.cpu_hit_tokens, 0);
}

// Async scheduling (vLLM >= 0.14, sim/engine_loop.hpp): a request that arrives while a step runs
// misses the step already scheduled behind it. Request A (1,000-token prompt, 500 output tokens)
// is decoding alone when B arrives 1 s later; B's TTFT under 0.15 is one decode step of A alone
// longer than under 0.13: Llama-3.1-8B's weights (8.03e9 x 2 B) and A's KV (about 1,150 tokens x
// 128 KiB) over 3,350 GB/s x 0.75, + 500 us. The lone A, on an idle engine, is not delayed.
TEST(Simulator, AsyncSchedulingDelaysANewRequestByOneStep) {
  auto s = with_override(scenario(kLoneRequest), "workload.requests", "2", "test");
  s = with_override(s, "workload.output", "500", "test");
  const auto sync =
      run_simulation(prepare_simulation(with_override(s, "vllm-version", "0.13", "test"), std::nullopt));
  const auto async =
      run_simulation(prepare_simulation(with_override(s, "vllm-version", "0.15", "test"), std::nullopt));
  const double decode_alone = (8.03e9 * 2 + 131072.0 * 1150) / (3350e9 * 0.75) + 500e-6;
  // A's context when B arrives (1,000 + 1 s of 6.9 ms steps: 1,100 to 1,200 tokens) moves the
  // step by under 3 us.
  EXPECT_NEAR(async.ttft_s.max - sync.ttft_s.max, decode_alone, 3e-6);
  EXPECT_DOUBLE_EQ(async.ttft_s.min, sync.ttft_s.min);
  EXPECT_EQ(async.steps, sync.steps + 1);
}

// The full-prompt admission gate (vLLM >= 0.19, #37307). Two 1,000-token prompts that decode 200
// tokens each, in a pool of 100 blocks (1,600 tokens), 512 tokens a step. A prefills alone (512 +
// 488), then decodes holding 63 blocks. Without the gate B takes the 24 tokens left in A's second
// step and a 511-token chunk next, but its whole prompt (63 blocks) never fits beside A: it is
// preempted and recomputed while A decodes. With the gate B waits until the free queue holds its
// whole prompt (after A finishes) and nothing is preempted: 1,000 + 1,000 prompt tokens and 199 +
// 199 decode steps, 2,398 tokens scheduled. Without it the same plus what was recomputed. The
// release decides the default; the key overrides it.
TEST(Simulator, FullPromptGateHoldsARequestThePoolCannotFinish) {
  const char* two = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 1600
num-gpu-blocks-override: 100
max-num-batched-tokens: 512
enable-prefix-caching: false
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
workload:
  requests: 2
  arrival: {process: closed, users: 2}
  prompt: 1000
  output: 200
)";
  const auto run = [&](const char* version, const char* gate) {
    auto s = with_override(scenario(two), "vllm-version", version, "test");
    if (gate) s = with_override(s, "scheduler-reserve-full-isl", gate, "test");
    return run_simulation(prepare_simulation(s, std::nullopt), {});
  };
  for (const auto& r : {run("0.18", nullptr), run("0.19", "false")}) {
    EXPECT_EQ(r.finished, 2);
    EXPECT_GE(r.preemptions, 1);
    EXPECT_GT(r.recomputed_tokens, 0);
    EXPECT_EQ(r.scheduled_tokens, 2398 + r.recomputed_tokens);
  }
  for (const auto& r : {run("0.19", nullptr), run("0.18", "true")}) {
    EXPECT_EQ(r.finished, 2);
    EXPECT_EQ(r.preemptions, 0);
    EXPECT_EQ(r.recomputed_tokens, 0);
    EXPECT_EQ(r.scheduled_tokens, 2398);
  }
}

// Workload duration (GuideLLM's --max-seconds): four users who always have a turn in flight, for
// 2 s of a run that would last far longer. At the stop exactly four requests are in flight and are
// aborted (timed out); none is sent after it, so the run ends within one step of 2 s. A duration
// longer than the run changes nothing.
TEST(Simulator, DurationStopsTheClientAndAbortsWhatIsInFlight) {
  auto s = with_override(scenario(kLoneRequest), "workload.requests", "1000", "test");
  s = with_override(s, "workload.arrival", "{process: closed, users: 4}", "test");
  s = with_override(s, "workload.output", "100", "test");
  const auto whole = run_simulation(prepare_simulation(s, std::nullopt), {});
  ASSERT_GT(whole.makespan_s, 10.0);
  const auto cut = run_simulation(
      prepare_simulation(with_override(s, "workload.duration", "2", "test"), std::nullopt), {});
  EXPECT_EQ(cut.timed_out, 4);
  EXPECT_GT(cut.finished, 0);
  EXPECT_LT(cut.finished, whole.finished);
  EXPECT_GE(cut.makespan_s, 2.0);
  EXPECT_LT(cut.makespan_s, 2.1);  // a decode step of four 1,100-token requests is under 10 ms
  const auto longer = run_simulation(
      prepare_simulation(with_override(s, "workload.duration", "100000", "test"), std::nullopt), {});
  EXPECT_EQ(longer.finished, whole.finished);
  EXPECT_DOUBLE_EQ(longer.makespan_s, whole.makespan_s);
  EXPECT_DOUBLE_EQ(longer.ttft_s.mean, whole.ttft_s.mean);
}

// LMCache's connector stores inside the step (lmcache-sync): a lone 1,000-token prompt's three
// full 256-token chunks (768 tokens; the last 232 are a partial chunk, not stored) are copied after
// its forward pass and before its token is sampled. Llama-3.1-8B's 128 KiB per token makes a chunk
// 32 MiB; the h100 file's measured d2h link is 53.21 GB/s and 2.16 us per copy, so the TTFT grows by
// 3 x (2.16 us + 33,554,432 B / 53.21 GB/s) = 1.898 ms. Switched off, the tier costs nothing.
TEST(Simulator, LmcacheStoresLengthenTheStepThatMakesThem) {
  auto s = with_override(scenario(kLoneRequest), "kv-offloading-size", "16", "test");
  s = with_override(s, "kv-offloading-backend", "lmcache", "test");
  const auto none = run_simulation(prepare_simulation(scenario(kLoneRequest), std::nullopt), {});
  const auto lmcache = run_simulation(prepare_simulation(s, std::nullopt), {});
  EXPECT_NEAR(lmcache.ttft_s.p50 - none.ttft_s.p50, 3 * (2.16e-6 + 33554432.0 / 53.21e9), 1e-9);
  EXPECT_DOUBLE_EQ(lmcache.d2h_bytes, 3.0 * 33554432.0);
  const auto off = run_simulation(
      prepare_simulation(with_override(s, "tier-costs", "[decode-stores]", "test"), std::nullopt), {});
  EXPECT_DOUBLE_EQ(off.ttft_s.p50, none.ttft_s.p50);
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

// A run without a CPU tier writes kv_offloading_size_gib null; the report's reader takes that as
// no tier (it refused the file as "not a number").
TEST(SimJson, APointWithoutATierReadsBack) {
  const auto doc = simulate_json(run_sweep(scenario(kLoneRequest), {}, std::nullopt, {}));
  ASSERT_TRUE(doc.at("points").at(0).at("kv_offloading_size_gib").is_null());
  const auto read = simulate_document_from_json(doc, "test.json");
  ASSERT_EQ(read.points.size(), 1u);
  EXPECT_EQ(read.points[0].kv_offloading_gib, 0);
  EXPECT_FALSE(read.points[0].offloading);
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

// link-method kernel: engine steps that overlap a transfer pay the copy kernel's measured cost to
// the model (dma --with-compute); with no cost it runs exactly as the copy engine does.
TEST(Simulator, KernelCopiesSlowTheStepsTheyOverlap) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", "300", "test");
  s = with_override(s, "kv-offloading-size", "64", "test");
  const auto ce = run_simulation(prepare_simulation(s, std::nullopt));
  auto kernel_setup = prepare_simulation(with_override(s, "link-method", "kernel", "test"), std::nullopt);
  ASSERT_GT(kernel_setup.link.kernel_compute_slowdown, 1.0);  // the h100's measured figure
  ASSERT_GT(ce.stores, 0);
  const auto kernel = run_simulation(kernel_setup);
  EXPECT_GT(kernel.engine_busy_s, ce.engine_busy_s);
  kernel_setup.link.kernel_compute_slowdown = 1.0;
  const auto free_kernel = run_simulation(kernel_setup);
  EXPECT_DOUBLE_EQ(free_kernel.engine_busy_s, ce.engine_busy_s);
  EXPECT_DOUBLE_EQ(free_kernel.ttft_s.p99, ce.ttft_s.p99);
}

}  // namespace
}  // namespace kvb
