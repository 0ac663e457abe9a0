// Trace reading and the prefix miss-ratio curve against hand counts and an independent, naive LRU
// cache simulation (a list scanned per access: slow and obviously right).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <list>
#include <random>
#include <string>

#include "core/errors.hpp"
#include "report/report_inputs.hpp"
#include "report/report_sections.hpp"
#include "test_paths.hpp"
#include "trace/miss_ratio.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_json.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

TraceRequest request(std::int64_t tokens, std::vector<std::uint64_t> ids) {
  TraceRequest r;
  r.prompt_tokens = tokens;
  r.block_ids = std::move(ids);
  return r;
}

// A cache of `capacity` blocks, LRU: a block is served when it and every block before it in the
// request are cached; then every block of the request becomes most recent, in order.
double naive_hit_rate(const std::vector<TraceRequest>& requests, std::size_t capacity,
                      std::int64_t block_tokens) {
  std::list<std::uint64_t> lru;  // front = most recent
  double hit = 0, total = 0;
  for (const auto& r : requests) {
    bool prefix = true;
    for (std::size_t b = 0; b < r.block_ids.size(); ++b) {
      const double tokens = static_cast<double>(
          std::min(block_tokens, r.prompt_tokens - static_cast<std::int64_t>(b) * block_tokens));
      total += tokens;
      const auto it = std::find(lru.begin(), lru.end(), r.block_ids[b]);
      prefix = prefix && it != lru.end();
      if (prefix) hit += tokens;
      if (it != lru.end()) lru.erase(it);
      lru.push_front(r.block_ids[b]);
      if (lru.size() > capacity) lru.pop_back();
    }
  }
  return total > 0 ? hit / total : 0;
}

TEST(PrefixMissRatio, HandCountedSessions) {
  // sessions.jsonl: a (1024 tokens: a0 a1), b (512: b0), a again (2048: a0 a1 a2 a3). The third
  // request finds a0 and a1 three places down the LRU stack (a1, b0 above a0; b0, a0 above a1):
  // 1024 of 3584 prompt tokens hit with 3 blocks or more, none with 2.
  TraceOptions o;
  const auto a = analyze_trace(data("sessions.jsonl"), o);
  EXPECT_EQ(a.requests, 3);
  EXPECT_EQ(a.distinct_blocks, 5);
  EXPECT_NEAR(a.unbounded_prefix_hit_rate, 1024.0 / 3584, 1e-12);
  PrefixMissRatio m(512);
  TraceReader reader(data("sessions.jsonl"), o);
  TraceRequest r;
  while (reader.next(r)) m.add(r);
  EXPECT_DOUBLE_EQ(m.hit_rate_at(2), 0.0);
  EXPECT_NEAR(m.hit_rate_at(3), 1024.0 / 3584, 1e-12);
}

TEST(PrefixMissRatio, ABlockAfterAMissDoesNotCount) {
  PrefixMissRatio m(16);
  m.add(request(48, {1, 2, 3}));
  m.add(request(48, {1, 9, 3}));  // 1 hits; 9 is new, so 3 (cached) is not served after it
  EXPECT_NEAR(m.unbounded_hit_rate(), 16.0 / 96, 1e-12);
}

TEST(PrefixMissRatio, EqualsANaiveLruAtEverySize) {
  // Random requests over shared prefixes: the one-pass curve must equal a naive simulation.
  std::mt19937_64 rng(2026);
  std::vector<TraceRequest> requests;
  for (int i = 0; i < 400; ++i) {
    const auto tree = rng() % 12, length = 1 + rng() % 10;
    std::vector<std::uint64_t> ids;
    for (std::uint64_t b = 0; b < length; ++b) ids.push_back(b < 4 ? tree * 100 + b : 10'000 + rng() % 300);
    requests.push_back(
        request(static_cast<std::int64_t>(length) * 64 - static_cast<std::int64_t>(rng() % 64), ids));
  }
  PrefixMissRatio m(64);
  for (const auto& r : requests) m.add(r);
  for (const std::size_t c : {1u, 3u, 10u, 40u, 120u, 400u, 5000u}) {
    EXPECT_NEAR(m.hit_rate_at(static_cast<std::int64_t>(c)), naive_hit_rate(requests, c, 64), 1e-12)
        << c << " blocks";
  }
}

TEST(TraceReader, FormatsAreDetectedAndCsvRecordsNoReuse) {
  TraceOptions o;
  const auto csv = analyze_trace(data("azure-style.csv"), o);
  EXPECT_EQ(csv.format, TraceFormat::kCsv);
  EXPECT_FALSE(csv.reuse_recorded);
  EXPECT_EQ(csv.requests, 3);
  EXPECT_NEAR(csv.duration_s, 51.2561240 - 46.6805900, 1e-6);  // from the TIMESTAMP column
  EXPECT_DOUBLE_EQ(csv.unbounded_prefix_hit_rate, 0.0);
  const auto moon = analyze_trace(data("mooncake-conversation-head2000.jsonl"), o);
  EXPECT_EQ(moon.format, TraceFormat::kMooncake);
  EXPECT_EQ(moon.requests, 2000);
}

// A CSV of its header alone holds no request: the same exit 2 as an empty file, not a sizing
// from nothing.
TEST(TraceReader, AHeaderWithoutRecordsIsNoTrace) {
  const auto path = (std::filesystem::temp_directory_path() / "kvbench-header-only.csv").string();
  {
    std::ofstream f(path);
    f << "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  }
  EXPECT_THROW((void)analyze_trace(path, TraceOptions{}), UsageError);
  std::filesystem::remove(path);
}

TEST(TraceReader, SampleKeepsWholePrefixTreesAndLimitStops) {
  TraceOptions o;
  o.sample = 0.25;
  const auto sampled = analyze_trace(data("mooncake-conversation-head2000.jsonl"), o);
  EXPECT_EQ(sampled.requests + sampled.skipped_by_sample, 2000);
  EXPECT_GT(sampled.requests, 0);
  o.sample = 1;
  o.limit = 10;
  EXPECT_EQ(analyze_trace(data("mooncake-conversation-head2000.jsonl"), o).requests, 10);
}

// The server the curve's GiB are for comes back whole, every field off its default; a document
// written before the server table (model, hardware and TP only) reads with the others' defaults.
TEST(TraceJson, TheServerRoundTripsAndAnOlderDocumentTakesTheDefaults) {
  const auto a = analyze_trace(data("mooncake-conversation-head2000.jsonl"), TraceOptions{});
  TraceKvCost cost;
  cost.server = {.model = "qwen3-32b",
                 .hf_id = "Qwen/Qwen3-32B",
                 .hardware = "l40s",
                 .tensor_parallel_size = 4,
                 .pipeline_parallel_size = 2,
                 .data_parallel_size = 1,
                 .expert_parallel = false,
                 .max_model_len = 40960,
                 .max_num_batched_tokens = 2048,
                 .max_num_seqs = 128,
                 .weight_dtype = "fp8",
                 .kv_cache_dtype = "fp8_e4m3",
                 .block_size = 32,
                 .offloading_backend = OffloadingBackend::kSimple};
  cost.kv_bytes_per_token = 65536;
  const auto doc = trace_json(a, cost);
  EXPECT_EQ(doc.at("tensor_parallel_size"), 4);  // at the top level, as trace wrote it before
  const auto read = trace_document_from_json(doc, "trace.json");
  EXPECT_EQ(read.cost.server, cost.server);
  EXPECT_EQ(read.cost.kv_bytes_per_token, 65536);
  auto older = doc;
  for (const char* key :
       {"hf_id", "pipeline_parallel_size", "max_model_len", "max_num_batched_tokens", "max_num_seqs",
        "weight_dtype", "kv_cache_dtype", "block_size", "kv_offloading_backend"})
    older.erase(key);
  const auto old_server = trace_document_from_json(older, "old.json").cost.server;
  EXPECT_EQ(old_server.model, "qwen3-32b");
  EXPECT_EQ(old_server.tensor_parallel_size, 4);
  EXPECT_EQ(old_server.pipeline_parallel_size, 1);
  EXPECT_EQ(old_server.block_size, 16);
  EXPECT_EQ(old_server.offloading_backend, OffloadingBackend::kNative);
}

TEST(TraceJson, TheReportReadsWhatTraceWritesAndDrawsTheCurve) {
  TraceOptions o;
  const auto a = analyze_trace(data("mooncake-conversation-head2000.jsonl"), o);
  // llama-3.1-8b: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token.
  TraceKvCost cost;
  cost.server.model = "llama-3.1-8b";
  cost.server.hardware = "h100";
  cost.kv_bytes_per_token = 131072;
  const auto doc = trace_json(a, cost);
  EXPECT_EQ(doc.at("schema"), kTraceSchema);
  EXPECT_NEAR(doc.at("unbounded_cache_gib").get<double>(),
              static_cast<double>(a.distinct_blocks) * 512 * 131072 / (1 << 30), 1e-6);
  ReportInputs in;
  add_report_document(in, doc, "trace.json");
  ASSERT_EQ(in.traces.size(), 1u);
  // Read back whole: written again, the same bytes.
  EXPECT_EQ(trace_json(in.traces[0].analysis, in.traces[0].cost).dump(), doc.dump());
  EXPECT_EQ(in.traces[0].analysis.curve.size(), a.curve.size());
  const auto html = trace_section_html(in.traces);
  EXPECT_NE(html.find("<section id=\"trace\">"), std::string::npos);
  EXPECT_NE(html.find("<polyline class=\"series\""), std::string::npos);
  // A hit rate above 1 in a crafted file is refused, naming it.
  auto bad = doc;
  bad["unbounded_prefix_hit_rate"] = 1.5;
  ReportInputs none;
  EXPECT_THROW(add_report_document(none, bad, "bad.json"), UsageError);
}

}  // namespace
}  // namespace kvb
