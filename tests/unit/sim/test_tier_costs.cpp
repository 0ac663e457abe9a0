// What an enabled CPU tier costs the engine, mechanism by mechanism (sim/tier_costs.hpp): each
// switched on alone against none, on a case small enough to work out by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {
namespace {

Scenario scenario(const std::string& yaml) { return parse_scenario(yaml, "test.yaml"); }

SimResult run(const Scenario& s, const std::string& costs) {
  return run_simulation(prepare_simulation(with_override(s, "tier-costs", costs, "test"), std::nullopt));
}

// One 1,000-token prompt, two output tokens: a prefill step, then one decode step. After the
// prefill its 62 full blocks are stored, and the store overlaps the decode step.
const char* kOneRequest = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
kv-offloading-size: 8
vllm-version: "0.19"
workload:
  requests: 1
  arrival: {process: fixed, rate: 1}
  prompt: 1000
  output: 2
)";

TEST(TierCosts, NamesRoundTripAndBadNamesAreUsageErrors) {
  EXPECT_EQ(tier_cost_names(TierCostSet::all()).size(), static_cast<std::size_t>(kTierCostCount));
  EXPECT_TRUE(tier_cost_names(TierCostSet::none()).empty());
  const auto set = parse_tier_costs({"fabric-sharing", "load-convoy"}, "test");
  EXPECT_EQ(tier_cost_names(set), (std::vector<std::string>{"fabric-sharing", "load-convoy"}));
  EXPECT_EQ(parse_tier_costs(tier_cost_names(set), "test"), set);
  EXPECT_THROW(parse_tier_costs({"lmcache-magic"}, "test"), UsageError);
  EXPECT_THROW(scenario(std::string(kOneRequest) + "tier-costs: [nope]\n"), UsageError);
}

TEST(TierCosts, ReleasesGateTheMechanisms) {
  EXPECT_TRUE(applies_to(TierCost::kStoreVisibility, {0, 19, 1}));
  EXPECT_FALSE(applies_to(TierCost::kStoreVisibility, {0, 23, 0}));
  EXPECT_FALSE(applies_to(TierCost::kLoadConvoy, {0, 11, 0}));
  EXPECT_TRUE(applies_to(TierCost::kLoadConvoy, {0, 15, 1}));
  EXPECT_FALSE(applies_to(TierCost::kDecodeStores, {0, 17, 1}));
  EXPECT_TRUE(applies_to(TierCost::kDecodeStores, {0, 18, 0}));
  // Read in vLLM's main of 2026-05-24 (after the 0.22 cut): later releases are assumed, and noted.
  EXPECT_FALSE(tier_costs_assumed_for({0, 22, 3}));
  EXPECT_TRUE(tier_costs_assumed_for({0, 23, 0}));
  EXPECT_FALSE(applies_to(TierCost::kPreemptFlush, {0, 13, 0}));
  EXPECT_TRUE(applies_to(TierCost::kFinishHold, {0, 19, 1}));
  EXPECT_FALSE(applies_to(TierCost::kFinishHold, {0, 21, 0}));
  EXPECT_TRUE(applies_to(TierCost::kPreemptFlush, {0, 14, 0}));
  EXPECT_TRUE(connector_work({0, 19, 1}).one_call_per_block);
  EXPECT_FALSE(connector_work({0, 20, 0}).one_call_per_block);
}

// Up to 0.19 the worker issues one cudaMemcpyAsync per block before the next forward pass: under
// synchronous scheduling (0.13) the decode step after the prefill pays 62 calls at the h100's
// measured 2.16 us per d2h copy, plus the scheduler's touch of the request's 62 blocks at 0.3 us.
// Under async scheduling (0.19) that work is done while the prefill runs on the GPU (about 15 ms):
// hidden, it costs nothing.
TEST(TierCosts, ConnectorWorkLengthensTheStepAfterTheStoresUnlessAsyncSchedulingHidesIt) {
  const auto sync = with_override(scenario(kOneRequest), "vllm-version", "0.13", "test");
  const auto none = run(sync, "none");
  const auto cpu = run(sync, "[connector-cpu]");
  ASSERT_EQ(none.stores, 1);
  EXPECT_NEAR(cpu.e2e_s.max - none.e2e_s.max, 62 * 2.16e-6 + 62 * 0.3e-6, 1e-12);
  EXPECT_NEAR(cpu.tier_cost_s[static_cast<std::size_t>(TierCost::kConnectorCpu)], 62 * 2.46e-6, 1e-12);
  EXPECT_DOUBLE_EQ(cpu.ttft_s.max, none.ttft_s.max);  // the prefill step had nothing to submit
  const auto async = run(scenario(kOneRequest), "[connector-cpu]");
  EXPECT_DOUBLE_EQ(async.tier_cost_s[static_cast<std::size_t>(TierCost::kConnectorCpu)], 0.0);
  EXPECT_DOUBLE_EQ(async.e2e_s.max, run(scenario(kOneRequest), "none").e2e_s.max);
}

// Qwen3-8B at TP 2 on L40S (no NVLink): the decode step's two all-reduces per layer carry one
// token's activations, 4,096 x 2 B, over 20 GB/s (the hardware file's NCCL bus bandwidth, taken
// whole): 2 x 36 x 8,192 B / 20e9 = 29.49 us. While the prefill's stores hold the link the
// decode step's all-reduce bytes take twice as long: it pays that figure times the share of the
// step the store overlaps.
TEST(TierCosts, FabricSharingOnPcieOnlyGpusStretchesTheOverlappedAllReduce) {
  auto s = scenario(kOneRequest);
  s = with_override(s, "model", "qwen3-8b", "test");
  s = with_override(s, "hardware", "l40s", "test");
  s = with_override(s, "tensor-parallel-size", "2", "test");
  const auto setup = prepare_simulation(with_override(s, "tier-costs", "none", "test"), std::nullopt);
  ASSERT_TRUE(setup.fabric_shares_host_link);
  StepWork decode;
  decode.add(1000, 1, 0);
  const double all_reduce = setup.predictor.all_reduce_bandwidth_seconds(decode);
  EXPECT_NEAR(all_reduce, 2 * 36 * (4096 * 2 / 20e9), 1e-12);
  StepWork prefill;
  prefill.add(0, 1000, 0);
  const double prefill_s = setup.predictor.step_seconds(prefill);
  const double decode_s = setup.predictor.step_seconds(decode);
  // The store meets the decode step, slowed by half the prefill step's all-reduce share.
  const double share = setup.predictor.all_reduce_bandwidth_seconds(prefill) / prefill_s;
  const double store = setup.link.d2h.seconds(62, setup.block_bytes_per_rank) / (1 - share / 2);
  const double overlap = std::min(1.0, store / decode_s);
  const auto none = run(s, "none");
  const auto shared = run(s, "[fabric-sharing]");
  // The stretched step and the plain one each enter the clock rounded to the nanosecond.
  EXPECT_NEAR(shared.e2e_s.max - none.e2e_s.max, all_reduce * overlap, 1e-9);
  EXPECT_GT(overlap, 0.0);
  // With NVLink (the h100) the fabric is not the host link: nothing to share.
  const auto h100 = prepare_simulation(
      with_override(scenario(kOneRequest), "tensor-parallel-size", "2", "test"), std::nullopt);
  EXPECT_FALSE(h100.fabric_shares_host_link);
}

// From 0.18 the blocks that decoding fills are stored too: 1,000 prompt tokens and 99 decoded ones
// fill 68 blocks, not the prompt's 62.
TEST(TierCosts, DecodedBlocksAreStoredFromRelease018) {
  auto s = with_override(scenario(kOneRequest), "workload.output", "100", "test");
  const auto prompt_only = run(with_override(s, "vllm-version", "0.17", "test"), "all");
  const auto decoded = run(s, "all");
  const auto setup = prepare_simulation(s, std::nullopt);
  EXPECT_NEAR(prompt_only.d2h_bytes, 62 * setup.cpu_block_bytes, 1e-3);
  EXPECT_NEAR(decoded.d2h_bytes, 68 * setup.cpu_block_bytes, 1e-3);
}

// Two requests reading one 4,096-token document, 0.25 s apart, GPU prefix caching off (as the
// vLLM blog ran its experiments): the first is still decoding (200 tokens) when the second
// arrives, its stores done. Up to 0.20 its stored blocks are not hits for others until it
// finishes: the second recomputes.
const char* kTwoReaders = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
enable-prefix-caching: false
kv-offloading-size: 8
vllm-version: "0.19"
workload:
  requests: 2
  arrival: {process: fixed, rate: 4}
  documents: 1
  document-tokens: 4096
  document-order: round-robin
  prompt: 1
  output: 200
)";

TEST(TierCosts, StoredBlocksAreHitsOnlyOnceTheirRequestFinishedUpTo020) {
  const auto s = scenario(kTwoReaders);
  const auto old_release = run(s, "all");
  const auto fixed = run(with_override(s, "vllm-version", "0.23", "test"), "all");
  const auto off = run(s, "none");
  EXPECT_EQ(old_release.cpu_hit_tokens, 0);
  EXPECT_EQ(fixed.cpu_hit_tokens, 4096);
  EXPECT_EQ(off.cpu_hit_tokens, 4096);
}

// A trace (Mooncake JSONL, 512 tokens per hash id): A reads a 4,096-token document at 0 s; D's
// 9,590 tokens at 1 s take the whole 600-block GPU pool and evict A's cached blocks (the CPU tier keeps
// them); B and C read A's document together at 5 s. Without the convoy both load it; with it
// (0.15 on) C waits for B's load, then finds the blocks in the GPU prefix cache.
const char* kConvoyServer = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 9600
num-gpu-blocks-override: 600
kv-offloading-size: 8
vllm-version: "0.23"
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)";

// Runs `server` on a Mooncake JSONL trace of `lines` (512 tokens per hash id).
SimResult run_trace(const char* server, const std::string& lines, const std::string& costs) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kvbench-tier-costs-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(path);
    f << lines;
  }
  auto s = with_override(scenario(server), "tier-costs", costs, "test");
  s.trace = TraceInput{path.string(), TraceOptions{}};
  auto r = run_simulation(prepare_simulation(s, std::nullopt));
  std::filesystem::remove(path);
  return r;
}

SimResult run_convoy_trace(const std::string& costs) {
  std::ostringstream f;
  const std::string doc = R"("hash_ids": [1, 2, 3, 4, 5, 6, 7, 8, 9])";
  f << R"({"timestamp": 0, "input_length": 4097, "output_length": 1, )" << doc << "}\n";
  f << R"({"timestamp": 1000, "input_length": 9590, "output_length": 1, "hash_ids": [)";
  for (int i = 0; i < 19; ++i) f << (i ? ", " : "") << 100 + i;
  f << "]}\n";
  f << R"({"timestamp": 5000, "input_length": 4097, "output_length": 1, )" << doc << "}\n";
  f << R"({"timestamp": 5000, "input_length": 4097, "output_length": 1, )" << doc << "}\n";
  return run_trace(kConvoyServer, f.str(), costs);
}

TEST(TierCosts, RequestsWaitForALoadOfTheirBlocksFrom015) {
  const auto free = run_convoy_trace("none");
  const auto convoy = run_convoy_trace("[load-convoy]");
  ASSERT_EQ(free.finished, 4);
  EXPECT_EQ(free.loads, 2);
  EXPECT_EQ(convoy.loads, 1);
  EXPECT_EQ(convoy.cpu_hit_tokens, 4096);
  EXPECT_EQ(free.cpu_hit_tokens, 2 * 4096);
  // C's document comes from the GPU prefix cache once B's load has put it there.
  EXPECT_EQ(convoy.gpu_hit_tokens - free.gpu_hit_tokens, 4096);
}

// A (800 tokens, 50 full blocks, 10 output tokens) is prefilled alone. B (784 tokens, 49 full
// blocks) arrives during that step; under async scheduling the next step was scheduled already, so
// B is prefilled in the third, beside A's decode, and fills the 100-block pool (A's 51st block
// holds its decoded tokens). B's first decode token needs a 50th block: B, admitted last, is
// preempted while the store of its 49 blocks, submitted as its prefill ended, is in flight (A's
// store ended long before). From 0.14 the next forward pass waits for that copy; A, still
// decoding, finishes that much later.
const char* kPreemptionServer = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 1024
num-gpu-blocks-override: 100
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
kv-offloading-size: 8
vllm-version: "0.19"
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)";

SimResult run_preemption_trace(const std::string& costs, const char* version = "0.19") {
  const std::string lines =
      std::string(R"({"timestamp": 0, "input_length": 800, "output_length": 10, )") +
      R"("hash_ids": [1, 2]})" + "\n" +
      R"({"timestamp": 1, "input_length": 784, "output_length": 3, "hash_ids": [3, 4]})" + "\n";
  std::string server = kPreemptionServer;
  server.replace(server.find("0.19"), 4, version);
  return run_trace(server.c_str(), lines, costs);
}

TEST(TierCosts, APreemptionWaitsForThePreemptedRequestsStoresFrom014) {
  const auto setup = prepare_simulation(scenario(kPreemptionServer), std::nullopt);
  const auto none = run_preemption_trace("none");
  const auto flush = run_preemption_trace("[preempt-flush]");
  ASSERT_EQ(none.finished, 2);
  ASSERT_EQ(none.preemptions, 1);
  const double b_store = setup.link.d2h.seconds(49, setup.block_bytes_per_rank);
  // The store's end is on the clock, rounded to the nanosecond.
  EXPECT_NEAR(flush.tier_cost_s[static_cast<std::size_t>(TierCost::kPreemptFlush)], b_store, 0.5e-9);
  EXPECT_NEAR(flush.e2e_s.min - none.e2e_s.min, b_store, 1e-9);
  const auto before = run_preemption_trace("[preempt-flush]", "0.13");
  EXPECT_DOUBLE_EQ(before.tier_cost_s[static_cast<std::size_t>(TierCost::kPreemptFlush)], 0.0);
}

// A (800 tokens, 3 output tokens) is prefilled in the first step and decodes in the next two,
// storing its 50 full blocks. C (16 tokens, 20 output tokens) reaches the scheduler after the first
// step's schedule call; under async scheduling the second step was scheduled with it, so C is
// prefilled in the third and keeps the engine stepping. Up to 0.20 A's 51 blocks go back to the
// pool two steps after the one it finished in, not at once: the pool holds 51 more blocks during
// C's first two decode steps (positions 16 and 17), and nothing else changes.
TEST(TierCosts, AFinishedRequestThatStoredKeepsItsBlocksTwoStepsUpTo020) {
  const std::string lines = std::string(R"({"timestamp": 0, "input_length": 800, "output_length": 3, )") +
                            R"("hash_ids": [1, 2]})" + "\n" +
                            R"({"timestamp": 0, "input_length": 16, "output_length": 20, "hash_ids": [3]})" +
                            "\n";
  const auto none = run_trace(kPreemptionServer, lines, "none");
  const auto hold = run_trace(kPreemptionServer, lines, "[finish-hold]");
  ASSERT_EQ(none.finished, 2);
  EXPECT_DOUBLE_EQ(hold.makespan_s, none.makespan_s);
  const auto setup = prepare_simulation(scenario(kPreemptionServer), std::nullopt);
  double held_s = 0;
  for (const std::int64_t position : {16, 17}) {
    StepWork decode;
    decode.add(position, 1, 0);
    held_s += setup.predictor.step_seconds(decode);
  }
  // Each of the two steps enters the clock rounded to the nanosecond: 51 blocks x 2 x 0.5 ns at most.
  EXPECT_NEAR((hold.kv_occupancy_mean - none.kv_occupancy_mean) * none.makespan_s * 100, 51 * held_s, 51e-9);
}

}  // namespace
}  // namespace kvb
