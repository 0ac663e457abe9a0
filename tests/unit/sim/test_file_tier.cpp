// A tier on files (kv-offloading-medium, sim/file_tier.hpp): llm-d's file-system connector as the
// only tier, and beside the CPU tier under vLLM's MultiConnector; each checked by hand on a revisit,
// by the conservation of tokens under pressure, and the configurations it does not run refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/errors.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"

namespace kvb {
namespace {

Scenario scenario(const std::string& yaml) { return parse_scenario(yaml, "test.yaml"); }

// Three requests 2 s apart read documents A, B, A (4096 tokens each, 256 blocks of 2 MiB of
// Llama-3.1-8B on one H100), the GPU prefix cache reset before each: the third finds A in the tier.
const std::string kRevisit = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
vllm-version: "0.19.1"
secondary-read-gbps: 20
secondary-write-gbps: 2
tier-costs: none
workload:
  requests: 3
  arrival: {process: fixed, rate: 0.5}
  documents: 2
  document-order: round-robin
  document-tokens: 4096
  prompt: 1
  output: 1
  reset-prefix-cache: true
)";
constexpr double kBlock = 16 * 131072.0;  // 2 MiB: 16 tokens of Llama-3.1-8B's 128 KiB

// The third request's step: one token computed against 4096 tokens of context (as in
// test_secondary_tier.cpp).
double one_token_step() {
  const double flops = 2 * 8.03e9 + 2.0 * 32 * 256 * 32 * 4097;
  const double bytes = 8.03e9 * 2 + 131072.0 * 4097;
  const double elementwise = 2 * 32 * (8 * 4096 + 2 * (4096 + 1024) + 3 * 14336) / (3350e9 * 0.75);
  return std::max(flops / (989e12 * 0.5), bytes / (3350e9 * 0.75)) + elementwise + 500e-6;
}

SimResult run_checked(const SimulationSetup& setup) {
  SimOptions check;
  check.check_invariants = true;
  return run_simulation(setup, check);
}

TEST(FileTier, AloneItLoadsAndStoresAtTheDisksRatesNotTheLinks) {
  const auto setup = prepare_simulation(scenario(kRevisit + "kv-offloading-size: 100\n"
                                                            "kv-offloading-medium: file\n"),
                                        std::nullopt);
  ASSERT_TRUE(setup.file_tier.has_value());
  EXPECT_FALSE(setup.secondary.has_value());
  const auto r = run_checked(setup);
  ASSERT_EQ(r.finished, 3);
  EXPECT_EQ(r.cpu_hit_tokens, 4096);  // A, from its files
  EXPECT_EQ(r.loads, 1);
  // A and B stored once each at 2 GB/s, A read back at 20 GB/s: no per-copy cost, not the H100's
  // 54 GB/s link.
  EXPECT_NEAR(r.d2h_utilization * r.makespan_s, 2 * 256 * kBlock / 2e9, 1e-9);
  EXPECT_NEAR(r.h2d_utilization * r.makespan_s, 256 * kBlock / 20e9, 1e-9);
  EXPECT_NEAR(r.ttft_s.min, 256 * kBlock / 20e9 + one_token_step(), 1e-9);
}

TEST(FileTier, BesideTheCpuTierARequestTheCpuTierMissesLoadsStraightFromTheFiles) {
  // The CPU tier holds 256 blocks: B's store evicts A from it, and A's files remain. Below vLLM 0.22:
  // MultiConnector needs no tiering.
  const auto setup = prepare_simulation(scenario(kRevisit + "kv-offloading-size: 0.5\n"
                                                            "kv-offloading-medium: cpu+file\n"
                                                            "secondary-tier-size: 100\n"
                                                            "secondary-latency-us: 100\n"),
                                        std::nullopt);
  ASSERT_TRUE(setup.secondary.has_value());
  EXPECT_TRUE(setup.secondary->side_by_side);
  const auto r = run_checked(setup);
  ASSERT_EQ(r.finished, 3);
  ASSERT_TRUE(r.secondary.has_value());
  const auto& s = *r.secondary;
  EXPECT_EQ(r.cpu_hit_tokens, 0);
  EXPECT_EQ(s.hit_tokens, 4096);
  EXPECT_EQ(s.blocks_read, 256);
  EXPECT_EQ(s.blocks_written, 512);   // A and B, each from the GPU
  EXPECT_NEAR(r.h2d_bytes, 0, 1e-9);  // nothing crosses the CPU tier: no promotion
  const double disk = 100e-6 + 256 * kBlock / 20e9;
  EXPECT_NEAR(s.read_busy_s, disk, 0.5e-9);  // one job, rounded to the nanosecond by the clock
  EXPECT_NEAR(s.write_busy_s, 2 * (100e-6 + 256 * kBlock / 2e9), 1e-9);
  EXPECT_NEAR(r.ttft_s.min, disk + one_token_step(), 1e-9);
}

TEST(FileTier, TokensAreConservedAndInvariantsHoldUnderPressure) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", "150", "test");
  s = with_override(s, "kv-cache-memory", "4GiB", "test");
  s = with_override(s, "max-model-len", "16384", "test");
  s = with_override(s, "secondary-read-gbps", "6", "test");
  s = with_override(s, "secondary-write-gbps", "3", "test");
  const auto alone = with_override(with_override(s, "kv-offloading-size", "40", "test"),
                                   "kv-offloading-medium", "file", "test");
  auto beside = with_override(s, "kv-offloading-size", "1", "test");
  beside = with_override(beside, "secondary-tier-size", "40", "test");
  beside = with_override(beside, "kv-offloading-medium", "cpu+file", "test");
  for (const auto& sc : {alone, beside}) {
    const auto r = run_checked(prepare_simulation(sc, std::nullopt));
    const auto second = r.secondary ? r.secondary->hit_tokens : 0;
    EXPECT_EQ(r.finished, r.requests);
    // Every token but each request's last is computed once, found on the GPU, loaded from a tier,
    // or redone.
    EXPECT_EQ(r.scheduled_tokens, r.prompt_tokens + r.output_tokens - r.requests - r.gpu_hit_tokens -
                                      r.cpu_hit_tokens - second + r.recomputed_tokens);
    EXPECT_GT(r.cpu_hit_tokens + second, 0);
  }
}

TEST(FileTier, ConfigurationsItDoesNotRunAreRefusedNamingTheKey) {
  const auto refused = [](const std::string& keys, const std::string& words) {
    try {
      prepare_simulation(scenario(kRevisit + keys), std::nullopt);
      ADD_FAILURE() << keys << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("kv-offloading-medium: file\n", "needs kv-offloading-size");
  refused("kv-offloading-size: 10\nkv-offloading-medium: file\nsecondary-tier-size: 50\n", "is the one tier");
  refused("kv-offloading-size: 10\nkv-offloading-medium: file\nkv-offloading-backend: lmcache\n",
          "kv-offloading-backend lmcache");
  refused("kv-offloading-size: 10\nkv-offloading-medium: file\nsecondary-latency-us: 50\n",
          "secondary-latency-us is not simulated");
  refused("kv-offloading-size: 10\nkv-offloading-medium: cpu+file\n", "needs the file tier's room");
  refused("kv-offloading-size: 10\nkv-offloading-medium: tape\n", "expected cpu");
  refused("kv-offloading-size: 10\nkv-offloading-medium: file\nreplicas: 2\n",
          "shares them on a shared volume");
  // Without its rates.
  try {
    prepare_simulation(scenario(R"(
model: llama-3.1-8b
hardware: h100
kv-offloading-size: 10
kv-offloading-medium: file
workload: {requests: 1, arrival: {process: fixed, rate: 1}}
)"),
                       std::nullopt);
    ADD_FAILURE() << "a file tier without rates was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("secondary-read-gbps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvb
