// The kvbench/simulate/v1 document read back into SimulateDocument writes the same bytes: the
// documents simulate wrote for the golden cases, a fleet swept over two tier sizes, and a
// document with every optional field set; and a figure no run can write is refused by name.
#include <gtest/gtest.h>

#include <fstream>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "output/simulate/sim_document.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

nlohmann::json golden(const std::string& name) {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/../golden/" + name);
  auto doc = nlohmann::json::parse(in);
  doc["tool"] = "kvbench 0.0.0";  // golden.py leaves the tool's version out
  return doc;
}

TEST(SimulateJson, EveryGoldenSimulateDocumentRoundTripsByteForByte) {
  for (const char* name :
       {"simulate-chat-multi-turn.json", "simulate-doc-qa.json", "simulate-ttft-reload.json",
        "simulate-bursty-long-context.json", "simulate-coding-agent.json"}) {
    const auto written = golden(name);
    const auto read = simulate_document_from_json(written, name);
    EXPECT_EQ(simulate_json(read).dump(1), written.dump(1)) << name;
    EXPECT_EQ(read.points.size(), written.at("points").size()) << name;
  }
}

// Two replicas behind the prefix-aware router, swept without and with a 4 GiB tier: each
// replica's share and each tier cost mechanism's seconds come back.
TEST(SimulateJson, AFleetSweepRoundTripsWithEachReplicasShare) {
  const auto scenario = parse_scenario(R"(
model: llama-3.1-8b
hardware: h100
kv-cache-memory: 1.5GiB
max-model-len: 8192
replicas: 2
router: prefix-aware
workload:
  requests: 60
  arrival: {process: poisson, rate: 20}
  system-prefix: 4000
  system-prefixes: 4
  prompt: 100
  output: 8
)",
                                       "fleet.yaml");
  const auto run = run_sweep(scenario, {parse_sweep_axis("kv-offloading-size=0,4")}, std::nullopt, {});
  const auto written = simulate_json(run);
  const auto read = simulate_document_from_json(written, "fleet.json");
  EXPECT_EQ(simulate_json(read).dump(), written.dump());
  ASSERT_EQ(read.points.size(), 2u);
  EXPECT_EQ(read.points[1].metrics.replicas.size(), 2u);
  EXPECT_EQ(read.router, RouterKind::kPrefixAware);
  // What the report draws: the no-tier point's baseline is itself.
  EXPECT_DOUBLE_EQ(read.points[0].metrics.output_tokens_per_s,
                   read.points[0].vs_no_offload.baseline_output_tokens_per_s);
}

// A server with every field off its default comes back as the run resolved it: the scenario's
// stated values, the catalog's hf_id, the dtypes as vLLM holds them, and the points unchanged.
TEST(SimulateJson, TheResolvedServerAndThePointsRoundTrip) {
  const auto scenario = parse_scenario(R"(
model: qwen3-8b
hardware: h100
tensor-parallel-size: 2
max-model-len: 16384
max-num-batched-tokens: 4096
max-num-seqs: 64
kv-cache-dtype: fp8
block-size: 32
kv-offloading-size: 4
kv-offloading-backend: lmcache
workload:
  requests: 20
  arrival: {process: poisson, rate: 10}
  prompt: 600
  output: 4
)",
                                       "server.yaml");
  const auto run = run_sweep(scenario, {}, std::nullopt, {});
  const auto doc = simulate_document(run);
  const auto read = simulate_document_from_json(simulate_json(doc), "server.json");
  EXPECT_EQ(read.server, doc.server);
  const auto& s = read.server;
  EXPECT_EQ(s.model, "qwen3-8b");
  EXPECT_EQ(s.hf_id, "Qwen/Qwen3-8B");
  EXPECT_EQ(s.hardware, "h100");
  EXPECT_EQ(s.tensor_parallel_size, 2);
  EXPECT_EQ(s.pipeline_parallel_size, 1);
  EXPECT_EQ(s.max_model_len, 16384);
  EXPECT_EQ(s.max_num_batched_tokens, 4096);
  EXPECT_EQ(s.max_num_seqs, 64);
  EXPECT_EQ(s.kv_cache_dtype, "fp8");
  EXPECT_EQ(s.block_size, 32);
  EXPECT_EQ(s.offloading_backend, OffloadingBackend::kLmcache);
  ASSERT_EQ(read.points.size(), 1u);
  EXPECT_EQ(read.points[0].max_model_len, 16384);
  EXPECT_EQ(read.points[0].gpu_blocks, doc.points[0].gpu_blocks);
  EXPECT_EQ(read.points[0].cpu_blocks, doc.points[0].cpu_blocks);
  EXPECT_EQ(read.points[0].metrics.output_tokens, doc.points[0].metrics.output_tokens);
  EXPECT_EQ(simulate_json(read).dump(), simulate_json(doc).dump());
}

// A document written before the link, the step model and the expected error were facts holds
// their words: they read back as written and are written back under their own keys.
TEST(SimulateJson, AnOlderDocumentsModelWordsAreKeptAsWritten) {
  SimulateDocument d;
  d.server.model = "qwen3-8b";
  d.server.hardware = "l40s";
  auto old = simulate_json(d);
  old.erase("link");
  old.erase("time_model_terms");
  old["link_model"] = "l40s h2d 25 GB/s (datasheet)";
  old["time_model"] = "roofline per TP rank";
  old["expected_error"] = "TTFT mean within 4.0%";
  const auto read = simulate_document_from_json(old, "old.json");
  EXPECT_EQ(std::get<std::string>(read.link), "l40s h2d 25 GB/s (datasheet)");
  EXPECT_EQ(std::get<std::string>(read.time_model), "roofline per TP rank");
  EXPECT_EQ(read.expected_error.recorded, "TTFT mean within 4.0%");
  EXPECT_EQ(simulate_json(read).dump(), old.dump());
}

TEST(SimulateJson, EveryOptionalFieldRoundTripsAndABadFigureIsRefusedByName) {
  SimulateDocument d;
  d.tool = "kvbench 1.2.3";
  d.scenario_name = "replay";
  d.seed = 18'000'000'000'000'000'000ULL;  // past int64: written and read as unsigned
  d.trace =
      TraceInput{"traces/mooncake.jsonl", {.block_tokens = 512, .speed = 2.5, .sample = 0.25, .limit = 9}};
  d.server.model = "qwen3-8b";
  d.server.hardware = "l40s";
  d.interrupted = true;
  d.interrupted_during = "kv-offloading-size=64";
  d.sweep = {{"kv-offloading-size", {"0", "64"}}};
  d.gpu_blocks = GpuBlocksOrigin{.from = GpuBlocksFrom::kSizing, .kv_bytes = 3e10, .hardware = "l40s"};
  d.notes = {ContextDefaultedNote{40960}, PipelineNote{}};
  SimPointRecord p;
  p.params = {{"kv-offloading-size", "64"}};
  p.offloading = true;
  p.kv_offloading_gib = 64;
  p.metrics.ttft_s = {.count = 2, .min = 0.1, .p50 = 0.2, .p90 = 0.3, .p99 = 0.4, .max = 0.5, .mean = 0.25};
  p.metrics.kv_occupancy = {{0.0, 0.5}, {1.5, 0.75}};
  p.metrics.tier_cost_s[static_cast<std::size_t>(TierCost::kLoadConvoy)] = 0.125;
  p.vs_no_offload.baseline_ttft_p99_s = 0.8;
  d.points.push_back(p);
  const auto written = simulate_json(d);
  EXPECT_TRUE(written.at("expected_error").at("scored").empty());  // not scored: no class
  EXPECT_TRUE(written.at("link").is_object());                     // the link's facts, not words
  EXPECT_FALSE(written.contains("link_model"));
  const auto read = simulate_document_from_json(written, "t.json");
  EXPECT_EQ(simulate_json(read).dump(), written.dump());
  EXPECT_EQ(read.seed, d.seed);
  EXPECT_DOUBLE_EQ(read.trace->options.speed, 2.5);
  EXPECT_DOUBLE_EQ(read.points[0].metrics.tier_cost_s[static_cast<std::size_t>(TierCost::kLoadConvoy)],
                   0.125);
  auto bad = written;
  bad["points"][0]["metrics"]["gpu_hit_rate"] = 1.5;  // a share of prompt tokens
  try {
    (void)simulate_document_from_json(bad, "t.json");
    FAIL() << "a hit rate of 1.5 was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpu_hit_rate"), std::string::npos) << e.what();
  }
}

// A document written before the notes and the GPU blocks' origin were facts (sentences under
// "notes" and "gpu_blocks_source") still reads, its sentences kept as written.
TEST(SimulateJson, ADocumentWithTheOlderSentencesReadsWithItsWordsKept) {
  auto old = golden("simulate-doc-qa.json");
  old.erase("gpu_blocks_origin");
  old["gpu_blocks_source"] = "sizing engine: 43.2 GiB KV cache on h100";
  old["notes"] = {"max-model-len defaulted to 8,192 tokens, what the GPU KV cache holds"};
  const auto read = simulate_document_from_json(old, "old.json");
  ASSERT_EQ(read.notes.size(), 1u);
  EXPECT_EQ(std::get<ModelNote>(read.notes[0]).text, old["notes"][0].get<std::string>());
  EXPECT_EQ(std::get<std::string>(read.gpu_blocks), "sizing engine: 43.2 GiB KV cache on h100");
  // Written back: the sentence as a model note (its words as given), the source as it was.
  auto expected = old;
  expected["notes"] = nlohmann::json::parse(
      R"([{"kind": "model", "text": "max-model-len defaulted to 8,192 tokens, what the GPU KV cache holds"}])");
  EXPECT_EQ(simulate_json(read).dump(1), expected.dump(1));
}

}  // namespace
}  // namespace kvb
