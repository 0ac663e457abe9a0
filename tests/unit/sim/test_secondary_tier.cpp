// A secondary tier behind the CPU tier (sim/secondary_tier.hpp): a hand-checked promotion, the
// conservation laws with it, its JSON read back, and the configurations vLLM would not run refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "output/simulate/sim_document.hpp"
#include "sim/offload_tier.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "sim/sweep.hpp"

namespace kvb {
namespace {

Scenario scenario(const std::string& yaml) { return parse_scenario(yaml, "test.yaml"); }

// Three requests 2 s apart read documents A, B, A (4096 tokens each, 256 blocks of 2 MiB), the GPU
// prefix cache reset before each. The CPU tier holds 256 blocks (0.5 GiB), so B's store evicts A
// from it; A stays in the secondary tier, written through when its store completed.
const char* kRevisit = R"(
model: llama-3.1-8b
hardware: h100
max-model-len: 16384
calibration: {compute-efficiency: 0.5, memory-efficiency: 0.75, step-overhead-us: 500}
kv-offloading-size: 0.5
secondary-tier-size: 100
secondary-read-gbps: 20
secondary-write-gbps: 2
secondary-latency-us: 100
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

TEST(SecondaryTier, ARevisitAfterTheCpuTierEvictedItLoadsFromDiskThenOverTheLink) {
  const auto setup = prepare_simulation(scenario(kRevisit), std::nullopt);
  ASSERT_EQ(setup.cpu_blocks, 256);
  ASSERT_TRUE(setup.secondary.has_value());
  SimOptions check;
  check.check_invariants = true;
  const auto r = run_simulation(setup, check);
  ASSERT_EQ(r.finished, 3);
  ASSERT_TRUE(r.secondary.has_value());
  const auto& s = *r.secondary;
  EXPECT_EQ(r.gpu_hit_tokens, 0);
  EXPECT_EQ(r.cpu_hit_tokens, 0);  // A left the CPU tier when B was stored
  EXPECT_EQ(s.hit_tokens, 4096);   // the third request's 256 blocks, promoted through the CPU tier
  EXPECT_EQ(s.blocks_read, 256);
  EXPECT_EQ(s.blocks_written, 512);  // A and B once each; A promoted back is not written again
  EXPECT_EQ(r.loads, 1);
  const double block = 16 * 131072.0;  // 2 MiB: 16 tokens of Llama-3.1-8B's 128 KiB
  EXPECT_NEAR(s.bytes_written, 512 * block, 1e-3);
  EXPECT_NEAR(s.bytes_read, 256 * block, 1e-3);
  EXPECT_NEAR(r.h2d_bytes, 256 * block, 1e-3);
  // The third request: the disk read (one latency, then 256 blocks at 20 GB/s), then the CPU -> GPU
  // load over the H100's h2d link (54.06 GB/s, 2.724 us per copy), then one token computed against
  // 4096 tokens of context (the step as in test_simulator.cpp's reload case).
  const double disk = 100e-6 + 256 * block / 20e9;
  const double load = 256 * (2.724e-6 + block / 54.06e9);
  const double flops = 2 * 8.03e9 + 2.0 * 32 * 256 * 32 * 4097;
  const double bytes = 8.03e9 * 2 + 131072.0 * 4097;
  const double elementwise = 2 * 32 * (8 * 4096 + 2 * (4096 + 1024) + 3 * 14336) / (3350e9 * 0.75);
  const double step = std::max(flops / (989e12 * 0.5), bytes / (3350e9 * 0.75)) + elementwise + 500e-6;
  EXPECT_NEAR(r.ttft_s.min, disk + load + step, 1e-9);  // the two cold prefills take over 0.1 s
  EXPECT_NEAR(s.read_busy_s, disk, 0.5e-9);             // one job, rounded to the nanosecond by the clock
  EXPECT_NEAR(s.write_busy_s, 2 * (100e-6 + 256 * block / 2e9), 1e-9);
  EXPECT_EQ(s.evictions, 0);
  EXPECT_EQ(s.peak_blocks, 512);
}

TEST(SecondaryTier, TokensAndBytesAreConservedAndInvariantsHoldUnderPressure) {
  auto s = load_scenario("chat-multi-turn");
  s = with_override(s, "workload.requests", "150", "test");
  s = with_override(s, "kv-cache-memory", "4GiB", "test");
  s = with_override(s, "max-model-len", "16384", "test");
  s = with_override(s, "kv-offloading-size", "1", "test");
  s = with_override(s, "secondary-read-gbps", "6", "test");
  s = with_override(s, "secondary-write-gbps", "3", "test");
  s = with_override(s, "secondary-latency-us", "80", "test");
  for (const char* size : {"6", "40"}) {  // a tier that evicts, and one that holds everything
    const auto setup =
        prepare_simulation(with_override(s, "secondary-tier-size", size, "test"), std::nullopt);
    SimOptions check;
    check.check_invariants = true;  // the CPU and secondary tiers' capacity and policy after every step
    const auto r = run_simulation(setup, check);
    ASSERT_TRUE(r.secondary.has_value()) << size;
    const auto& t = *r.secondary;
    EXPECT_EQ(r.finished, r.requests);
    // Every token but each request's last is computed once, found on the GPU, loaded from the CPU
    // tier or from the secondary tier, or redone.
    EXPECT_EQ(r.scheduled_tokens, r.prompt_tokens + r.output_tokens - r.requests - r.gpu_hit_tokens -
                                      r.cpu_hit_tokens - t.hit_tokens + r.recomputed_tokens)
        << size;
    EXPECT_GT(t.hit_tokens, 0) << size;
    EXPECT_NEAR(t.bytes_written, static_cast<double>(t.blocks_written) * setup.cpu_block_bytes,
                1e-3 * t.bytes_written);
    EXPECT_NEAR(t.bytes_read, static_cast<double>(t.blocks_read) * setup.cpu_block_bytes,
                1e-3 * t.bytes_read + 1);
    EXPECT_LE(t.peak_blocks, setup.secondary->blocks) << size;
    EXPECT_LE(r.cpu_tier_peak_blocks, setup.cpu_blocks) << size;
    // Each block the secondary served was read from it once per hit at least.
    EXPECT_GE(t.blocks_read * setup.server.block_size, t.hit_tokens) << size;
    if (std::string(size) == "6") {
      EXPECT_GT(t.evictions, 0);
    }
  }
}

TEST(SecondaryTier, WithoutOneTheRunIsTheSameAsBefore) {
  auto s = load_scenario("doc-qa");
  s = with_override(s, "workload.requests", "120", "test");
  s = with_override(s, "kv-offloading-size", "8", "test");
  const auto plain = run_simulation(prepare_simulation(s, std::nullopt));
  const auto zero =
      run_simulation(prepare_simulation(with_override(s, "secondary-tier-size", "0", "test"), std::nullopt));
  EXPECT_FALSE(plain.secondary.has_value());
  EXPECT_FALSE(zero.secondary.has_value());
  EXPECT_EQ(plain.makespan_s, zero.makespan_s);
  EXPECT_EQ(plain.cpu_hit_tokens, zero.cpu_hit_tokens);
}

TEST(SecondaryTier, ItsFiguresRoundTripThroughTheSimulateDocument) {
  auto s = scenario(kRevisit);
  const auto run = run_sweep(s, {parse_sweep_axis("secondary-tier-size=1,100")}, std::nullopt, {});
  const auto written = simulate_json(run);
  const auto& m = written.at("points").at(1).at("metrics");
  ASSERT_TRUE(m.contains("secondary_tier"));
  EXPECT_EQ(m.at("secondary_tier").at("hit_tokens").get<std::int64_t>(), 4096);
  EXPECT_EQ(m.at("secondary_tier").at("rates").get<std::string>(), "stated");
  const auto read = simulate_document_from_json(written, "t.json");
  EXPECT_EQ(simulate_json(read).dump(), written.dump());
  ASSERT_TRUE(read.points[1].metrics.secondary.has_value());
  EXPECT_DOUBLE_EQ(read.points[1].metrics.secondary->read_gbps, 20.0);
  auto bad = written;
  bad["points"][1]["metrics"]["secondary_tier"]["hit_rate"] = 2;  // a share of prompt tokens
  EXPECT_THROW((void)simulate_document_from_json(bad, "t.json"), UsageError);
}

// A CPU block being written to the secondary tier is held: a store that needs its room is cut
// short rather than evict it (vLLM's prepare_read ref count), and it is no load in flight.
TEST(SecondaryTier, ACpuBlockBeingWrittenThroughIsNotEvicted) {
  OffloadTier cpu(1, EvictionKind::kLru, 1);
  ASSERT_EQ(cpu.reserve({1}).size(), 1u);
  cpu.store_done({1});
  cpu.hold({1});
  EXPECT_FALSE(cpu.loading(1));
  EXPECT_TRUE(cpu.reserve({2}).empty());  // the only block is held: nothing to evict
  EXPECT_TRUE(cpu.ready(1));
  cpu.release({1});
  EXPECT_EQ(cpu.reserve({2}), std::vector<std::uint64_t>{2});
  EXPECT_FALSE(cpu.present(1));
  EXPECT_EQ(cpu.evictions(), 1);
}

// What vLLM would not run is refused in one line naming the keys.
TEST(SecondaryTier, ATierVllmWouldNotRunIsRefused) {
  const auto refused = [](const std::string& key, const std::string& value, const std::string& words) {
    try {
      (void)prepare_simulation(with_override(scenario(kRevisit), key, value, "test"), std::nullopt);
      ADD_FAILURE() << key << "=" << value << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("kv-offloading-size", "null", "needs a CPU tier in front of it");
  // An empty CPU tier (a sweep's no-tier point) is no connector: neither tier runs.
  EXPECT_FALSE(
      prepare_simulation(with_override(scenario(kRevisit), "kv-offloading-size", "0", "test"), std::nullopt)
          .secondary.has_value());
  refused("vllm-version", "0.21", "needs vLLM 0.22.0 or later");
  refused("kv-offloading-backend", "lmcache", "native tiering");
  std::string no_rates = kRevisit;
  no_rates.erase(no_rates.find("secondary-read-gbps: 20\n"), std::string("secondary-read-gbps: 20\n").size());
  try {
    (void)prepare_simulation(scenario(no_rates), std::nullopt);
    ADD_FAILURE() << "a secondary tier without a read rate was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs its read and write rates"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvb
