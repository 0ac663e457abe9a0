// vLLM's request log read as a trace, against figures worked out by hand from the fixtures
// tests/data/traces/vllm-request-log.log (epoch stamps; how it was written: tests/data/traces/README.md)
// and vllm-request-log-default-stamps.log (vLLM's own "MM-DD hh:mm:ss", across a new year).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_reader.hpp"
#include "trace/vllm_request_log.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

std::vector<TraceRequest> read_all(const std::string& path, const TraceOptions& o,
                                   TraceFormat* format = nullptr) {
  TraceReader reader(path, o);
  if (format) *format = reader.format();
  std::vector<TraceRequest> out;
  TraceRequest r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

TEST(VllmRequestLog, ArrivalsLengthsAndOutputsByHand) {
  TraceFormat format{};
  const auto r = read_all(data("vllm-request-log.log"), TraceOptions{}, &format);
  EXPECT_EQ(format, TraceFormat::kVllmLog);
  ASSERT_EQ(r.size(), 5u);
  // Details lines at 1764403260.25 + 0, 0.5, 2.0, 3.25, 4.0 s.
  const std::vector<double> arrival{0, 0.5, 2.0, 3.25, 4.0};
  // Prompts: 1,024 shared + 100; 1,024 + 300; 600 of them + 100; 40 ids (prompt: None); 12.
  const std::vector<std::int64_t> prompt{1124, 1324, 700, 40, 12};
  // Outputs: 7 ids logged; streamed (no ids): max_tokens 256; 3 ids; /v1/completions: max_tokens 16;
  // 2 ids (its prompt text holds a decoy ", prompt_token_ids: [1]").
  const std::vector<std::int64_t> output{7, 256, 3, 16, 2};
  const std::vector<std::size_t> blocks{3, 3, 2, 1, 1};  // ceil(prompt / 512)
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_NEAR(r[i].arrival_s, arrival[i], 1e-6) << i;
    EXPECT_EQ(r[i].prompt_tokens, prompt[i]) << i;
    EXPECT_EQ(r[i].output_tokens, output[i]) << i;
    EXPECT_EQ(r[i].block_ids.size(), blocks[i]) << i;
    for (const auto id : r[i].block_ids) EXPECT_LT(id, 1ULL << 62) << i;
  }
}

TEST(VllmRequestLog, PromptsSharingTheFirst1024TokensShareExactlyTwoIdsAt512) {
  const auto r = read_all(data("vllm-request-log.log"), TraceOptions{});
  ASSERT_EQ(r.size(), 5u);
  const auto& a = r[0].block_ids;
  const auto& b = r[1].block_ids;
  const auto& c = r[2].block_ids;
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[1], b[1]);
  EXPECT_NE(a[2], b[2]);  // tokens 1,024 on differ
  EXPECT_EQ(c[0], a[0]);  // c shares tokens 0..599: block 0 only
  EXPECT_NE(c[1], a[1]);
  EXPECT_NE(r[3].block_ids[0], a[0]);
  // At 256 tokens a block, the shared 1,024 tokens are 4 blocks.
  TraceOptions o;
  o.block_tokens = 256;
  const auto q = read_all(data("vllm-request-log.log"), o);
  ASSERT_EQ(q[0].block_ids.size(), 5u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(q[0].block_ids[k], q[1].block_ids[k]) << k;
  EXPECT_NE(q[0].block_ids[4], q[1].block_ids[4]);
}

TEST(VllmRequestLog, TheAnalysisCountsTheOutputsTakenFromMaxTokens) {
  const auto a = analyze_trace(data("vllm-request-log.log"), TraceOptions{});
  EXPECT_TRUE(a.reuse_recorded);
  EXPECT_EQ(a.requests, 5);
  EXPECT_EQ(a.vllm_log.requests, 5);
  EXPECT_EQ(a.vllm_log.output_upper_bound, 2);  // the streamed one and the completion
  EXPECT_FALSE(a.vllm_log.whole_seconds);
  // Blocks of 512: a = {s0, s1, a2}, b = {s0, s1, b2}, c = {s0, c1}, d, e: 7 distinct.
  EXPECT_EQ(a.distinct_blocks, 7);
  // Prompt tokens hit in an unbounded cache: b's 1,024 and c's first 512, of 3,200.
  EXPECT_NEAR(a.unbounded_prefix_hit_rate, (1024.0 + 512.0) / 3200.0, 1e-12);
}

TEST(VllmRequestLog, VllmsOwnStampsAreSecondsAcrossTheNewYear) {
  TraceOptions o;
  o.block_tokens = 4;
  const auto r = read_all(data("vllm-request-log-default-stamps.log"), o);
  ASSERT_EQ(r.size(), 3u);
  // 12-31 23:59:58, 23:59:59, then 01-01 00:00:01: 0, 1 and 3 s.
  EXPECT_DOUBLE_EQ(r[0].arrival_s, 0);
  EXPECT_DOUBLE_EQ(r[1].arrival_s, 1);
  EXPECT_DOUBLE_EQ(r[2].arrival_s, 3);
  EXPECT_EQ(r[0].output_tokens, 10);  // max_tokens: no response logged
  EXPECT_EQ(r[2].output_tokens, 4);   // 4 output ids
  ASSERT_EQ(r[0].block_ids.size(), 2u);
  ASSERT_EQ(r[1].block_ids.size(), 2u);
  EXPECT_EQ(r[0].block_ids[0], r[1].block_ids[0]);  // [1, 2, 3, 4] both
  EXPECT_NE(r[0].block_ids[1], r[1].block_ids[1]);  // [5, 6] against [9, 9, 9]
  EXPECT_TRUE(analyze_trace(data("vllm-request-log-default-stamps.log"), o).vllm_log.whole_seconds);
}

std::string error_for(const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() / "kvbench-vllm-log-bad.log").string();
  std::ofstream(path) << text;
  try {
    (void)analyze_trace(path, TraceOptions{});
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kAt = "1764403260.250000 DEBUG vllm.entrypoints.logger ";

TEST(VllmRequestLog, CutLinesAndLogsWithoutIdsAreRefusedSayingWhy) {
  // A line cut inside its id list.
  EXPECT_NE(error_for(kAt + "Request r1 details: prompt: 'x', prompt_token_ids: [1, 2, 3\n")
                .find("kvbench-vllm-log-bad.log:1: the prompt_token_ids list does not end on this line"),
            std::string::npos);
  // --max-log-len 8, as the start-up line states it.
  EXPECT_NE(
      error_for(
          "1764403200.0 INFO vllm.entrypoints.utils non-default args: {'max_log_len': 8}\n" + kAt +
          "Request r1 details: prompt: 'abc', prompt_token_ids: [1, 2, 3], prompt_embeds shape: None.\n")
          .find(":1: the server ran with --max-log-len 8"),
      std::string::npos);
  // --max-log-len 8 with no start-up line: two prompts cut to 8 characters and 8 ids.
  const std::string cut =
      "prompt: 'abcdefgh', prompt_token_ids: [1, 2, 3, 4, 5, 6, 7, 8], prompt_embeds shape: None.\n";
  EXPECT_NE(error_for(kAt + "Request r1 details: " + cut + kAt + "Request r2 details: " + cut)
                .find(":1: 2 prompts are logged as exactly 8 characters and 8 token ids"),
            std::string::npos);
  // INFO lines only: the prompt's ids are at DEBUG.
  EXPECT_NE(error_for("1764403260.25 INFO vllm.entrypoints.logger Received request r1: params: "
                      "SamplingParams(n=1, max_tokens=5), lora_request: None.\n")
                .find("1 'Received request' lines and no 'Request ... details' line"),
            std::string::npos);
  // Nothing of a trace.
  EXPECT_NE(error_for("hello\nworld\n").find(":1: neither a JSON record nor a CSV header"),
            std::string::npos);
  // A request line with no time before it.
  EXPECT_NE(error_for("Request r1 details: prompt: 'x', prompt_token_ids: [1], prompt_embeds shape: None.\n")
                .find(":1: a vLLM request-log line with no time before its message"),
            std::string::npos);
}

TEST(VllmRequestLog, TheLineParserReadsEachKind) {
  const auto details = parse_vllm_log_line(
      "INFO 06-01 09:22:30 [logger.py:49] Request r-9 details: prompt: None, prompt_token_ids: [5, 6, 7], "
      "prompt_embeds shape: None.",
      2, "t:1");
  ASSERT_TRUE(details);
  EXPECT_EQ(details->id, "r-9");
  EXPECT_FALSE(details->time.year_known);
  EXPECT_EQ(details->time.month, 6);
  EXPECT_DOUBLE_EQ(details->time.seconds, 9 * 3600 + 22 * 60 + 30);
  EXPECT_EQ(details->tokens, 3);
  EXPECT_EQ(details->block_ids.size(), 2u);
  const auto dated = parse_vllm_log_line(
      "1970-01-02 00:00:01,500 DEBUG Generated response r-9: output: 'a', output_token_ids: [1], "
      "finish_reason: stop",
      2, "t:2");
  ASSERT_TRUE(dated);
  EXPECT_TRUE(dated->time.year_known);
  EXPECT_DOUBLE_EQ(dated->time.seconds, 86401.5);
  EXPECT_EQ(dated->tokens, 1);
  EXPECT_FALSE(
      parse_vllm_log_line("1764403260.25 INFO vllm Generated response r-9 (streaming delta): output: 'a', "
                          "output_token_ids: [1], finish_reason: None",
                          2, "t:3"));
  EXPECT_FALSE(parse_vllm_log_line("INFO 06-01 09:22:30 [core.py:1] Engine started", 2, "t:4"));
}

TEST(VllmRequestLog, AnOlderVllmsOneInfoLineIsRead) {
  // Before vLLM PR #26713 one INFO line held the prompt, the params and the ids (vLLM 0.9's
  // vllm/entrypoints/logger.py: "Received request %s: prompt: %r, params: %s, prompt_token_ids: %s, ...").
  const auto path = (std::filesystem::temp_directory_path() / "kvbench-vllm-log-old.log").string();
  std::ofstream(path)
      << "INFO 05-01 10:00:00 [logger.py:39] Received request cmpl-1: prompt: 'hi', params: "
         "SamplingParams(n=1, stop=[' max_tokens=9)'], ignore_eos=False, max_tokens=7, min_tokens=0), "
         "prompt_token_ids: [1, 2, 3], prompt_embeds shape: None, lora_request: None, "
         "prompt_adapter_request: None.\n"
         "INFO 05-01 10:00:02 [logger.py:39] Received request cmpl-2: prompt: 'ho', params: "
         "SamplingParams(n=1, ignore_eos=False, max_tokens=5, min_tokens=0), prompt_token_ids: [1, 2, "
         "4], prompt_embeds shape: None, lora_request: None, prompt_adapter_request: None.\n";
  TraceOptions o;
  o.block_tokens = 2;
  const auto r = read_all(path, o);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[1].arrival_s, 2);
  EXPECT_EQ(r[0].prompt_tokens, 3);
  EXPECT_EQ(r[0].output_tokens, 7);  // max_tokens, not the stop string's decoy "max_tokens=9)"
  EXPECT_EQ(r[1].output_tokens, 5);
  EXPECT_EQ(r[0].block_ids[0], r[1].block_ids[0]);  // [1, 2] both
  EXPECT_NE(r[0].block_ids[1], r[1].block_ids[1]);  // [3] against [4]
}

}  // namespace
}  // namespace kvb
