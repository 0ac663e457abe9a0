// A recorded trace as the simulator's traffic: trace blocks become shared 16-token blocks exactly
// where the trace says two prompts share a prefix, and a replay counts what a hand count says.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "sim/trace_traffic.hpp"

namespace kvb {
namespace {

TraceRequest trace_request(double at, std::int64_t prompt, std::vector<std::uint64_t> ids) {
  TraceRequest t;
  t.arrival_s = at;
  t.prompt_tokens = prompt;
  t.output_tokens = 10;
  t.block_ids = std::move(ids);
  return t;
}

// How many leading block hashes two requests share.
std::size_t shared_blocks(const SimRequest& a, const SimRequest& b) {
  std::size_t n = 0;
  while (n < a.block_hashes.size() && n < b.block_hashes.size() && a.block_hashes[n] == b.block_hashes[n])
    ++n;
  return n;
}

TEST(TraceTraffic, SharedTraceBlocksAreSharedSimulatedBlocks) {
  // Two 1,500-token prompts that share their first two 512-token blocks: 1,024 tokens = 64 blocks of 16.
  const auto a = simulated_request(trace_request(0, 1500, {1, 2, 3}), 0, 512, 16);
  const auto b = simulated_request(trace_request(1, 1500, {1, 2, 4}), 1, 512, 16);
  EXPECT_EQ(shared_blocks(a, b), 64u);
  EXPECT_EQ(a.block_hashes.size(), static_cast<std::size_t>((1500 + 10) / 16));
  // The same ids, different lengths: the last (partial) block is shared up to the shorter prompt,
  // 600 tokens = 37 full blocks (592 tokens); block 38 holds the shorter one's reply.
  const auto c = simulated_request(trace_request(0, 600, {1, 2}), 2, 512, 16);
  const auto d = simulated_request(trace_request(0, 700, {1, 2}), 3, 512, 16);
  EXPECT_EQ(shared_blocks(c, d), 37u);
  // No common first block: nothing shared.
  EXPECT_EQ(shared_blocks(a, simulated_request(trace_request(0, 1500, {9, 2, 3}), 4, 512, 16)), 0u);
}

const char* kServer = R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 8GiB
max-model-len: 16384
workload:
  requests: 1
  arrival: {process: fixed, rate: 1}
)";

TEST(TraceReplay, CountsWhatAHandCountSays) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kvbench-trace-replay-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(path);
    // Mooncake records: ms, lengths, one hash id per 512 tokens. The second request shares the
    // first's first block and arrives long after it finished; the third is longer than
    // max-model-len (16,384) and is refused.
    f << R"({"timestamp": 0, "input_length": 1024, "output_length": 20, "hash_ids": [1, 2]})"
      << "\n";
    f << R"({"timestamp": 100000, "input_length": 1024, "output_length": 20, "hash_ids": [1, 3]})"
      << "\n";
    f << R"({"timestamp": 200000, "input_length": 20000, "output_length": 20, "hash_ids": [)";
    for (int i = 0; i < 40; ++i) f << (i ? ", " : "") << 100 + i;
    f << "]}\n";
  }
  auto s = parse_scenario(kServer, "server.yaml");
  s.trace = TraceInput{path.string(), TraceOptions{}};
  const auto r = run_simulation(prepare_simulation(s, std::nullopt));
  std::filesystem::remove(path);
  EXPECT_EQ(r.requests, 2);
  EXPECT_EQ(r.finished, 2);
  EXPECT_EQ(r.rejected_requests, 1);
  EXPECT_EQ(r.prompt_tokens, 2048);
  EXPECT_EQ(r.output_tokens, 40);
  EXPECT_EQ(r.gpu_hit_tokens, 512);  // the shared first block, from the GPU prefix cache
  EXPECT_DOUBLE_EQ(r.gpu_hit_rate, 0.25);
}

}  // namespace
}  // namespace kvb
