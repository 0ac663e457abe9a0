// calibrate --from-vllm reading benchmark clients' results (calibrate/client_results through the
// trace readers): the ObservedRequests' arrivals, TTFT and end-to-end latency worked out by hand from
// the files (tests/data/traces/, and small records written here in each unit the schemas allow).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "calibrate/vllm_results.hpp"
#include "core/errors.hpp"
#include "output/calibrate/calibrate_output.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

// A file of its own per test: ctest runs the tests of this binary in parallel.
std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() / ("kvbench-client-results-" + name)).string();
  std::ofstream(path) << text;
  return path;
}

// One AIPerf record: start (ns), lengths, and the latency metrics given as JSON members.
std::string aiperf_line(long long start_ns, int isl, int osl, const std::string& latencies,
                        const std::string& error = "null") {
  return "{\"metadata\": {\"session_num\": 0, \"request_start_ns\": " + std::to_string(start_ns) +
         ", \"benchmark_phase\": \"profiling\"}, \"metrics\": {" + latencies +
         (latencies.empty() ? "" : ", ") + "\"input_sequence_length\": {\"value\": " + std::to_string(isl) +
         ", \"unit\": \"tokens\"}, \"output_sequence_length\": {\"value\": " + std::to_string(osl) +
         ", \"unit\": \"tokens\"}}, \"error\": " + error + "}\n";
}

std::string usage_error(const std::string& path) {
  try {
    (void)read_vllm_run(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

void expect_requests(const VllmRun& run, const std::vector<ObservedRequest>& want) {
  ASSERT_EQ(run.requests.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& r = run.requests[i];
    EXPECT_NEAR(r.arrival_s, want[i].arrival_s, 1e-6) << i;
    EXPECT_EQ(r.prompt_tokens, want[i].prompt_tokens) << i;
    EXPECT_EQ(r.output_tokens, want[i].output_tokens) << i;
    EXPECT_NEAR(r.ttft_s, want[i].ttft_s, 1e-9) << i;
    EXPECT_NEAR(r.e2e_s, want[i].e2e_s, 1e-9) << i;
  }
}

TEST(ClientResults, AiperfExportGivesEachRequestsLatenciesInSeconds) {
  const auto run = read_vllm_run(data("aiperf-profile-export.jsonl"));
  EXPECT_EQ(run.origin.client, "AIPerf");
  EXPECT_EQ(run.origin.arrivals.field, "metadata.request_start_ns");
  // Lines 2, 1, 3, 5, 6 start at 0, 250, 500, 1000 and 1500 ms; their time_to_first_token and
  // request_latency are in ms. Line 4 failed (its "error" is set).
  expect_requests(run, {{0.0, 800, 50, 0.0372, 1.3},
                        {0.25, 1200, 100, 0.0415, 0.9},
                        {0.5, 3000, 200, 0.088, 2.0},
                        {1.0, 513, 1, 0.0309, 1.7},
                        {1.5, 2048, 128, 0.0644, 1.5}});
  EXPECT_EQ(run.origin.left_out.failed, 1);
  EXPECT_EQ(run.origin.left_out.without_latency, 0);
}

TEST(ClientResults, AiperfUnitsAreConvertedAndRequestsWithoutALatencyCounted) {
  const auto path = write_temp(
      "units.jsonl",
      aiperf_line(5'000'000'000, 100, 10,
                  R"("time_to_first_token": {"value": 25000000, "unit": "ns"}, )"
                  R"("request_latency": {"value": 0.5, "unit": "sec"})") +
          aiperf_line(7'000'000'000, 200, 20,
                      R"("time_to_first_token": {"value": 40000, "unit": "us"}, )"
                      R"("request_latency": {"value": 1250, "unit": "ms"})") +
          // Not streamed: AIPerf measures no TTFT (TTFTMetric is STREAMING_TOKENS_ONLY).
          aiperf_line(6'000'000'000, 300, 30, R"("request_latency": {"value": 900, "unit": "ms"})") +
          // A success with no output token, and a failure: both left out as failed.
          aiperf_line(4'000'000'000, 300, 0,
                      R"("time_to_first_token": {"value": 10, "unit": "ms"}, )"
                      R"("request_latency": {"value": 10, "unit": "ms"})") +
          aiperf_line(1'000'000'000, 300, 30, "", R"({"code": 500})"));
  const auto run = read_vllm_run(path);
  // Arrivals from the first kept request's start (5 s): 0 and 2 s.
  expect_requests(run, {{0.0, 100, 10, 0.025, 0.5}, {2.0, 200, 20, 0.04, 1.25}});
  EXPECT_EQ(run.origin.left_out.failed, 2);
  EXPECT_EQ(run.origin.left_out.without_latency, 1);
  EXPECT_EQ(
      run_origin_text(run.origin),
      "AIPerf, arrivals from metadata.request_start_ns; left out of the fit: 2 requests the client "
      "recorded as failed (or without an output token), 1 request without a TTFT or an end-to-end latency");
}

TEST(ClientResults, AiperfBadLatencyNamesTheLineAndTheField) {
  const std::string ok = R"("request_latency": {"value": 900, "unit": "ms"})";
  const struct {
    const char* name;
    std::string metrics, said;
  } cases[] = {
      {"unit.jsonl", R"("time_to_first_token": {"value": 3, "unit": "minutes"}, )" + ok,
       ":2: 'metrics.time_to_first_token.unit' is \"minutes\"; expected \"ns\", \"us\", \"ms\" or \"sec\""},
      {"nounit.jsonl", R"("time_to_first_token": {"value": 3}, )" + ok,
       ":2: 'metrics.time_to_first_token.unit' is missing"},
      {"value.jsonl", R"("time_to_first_token": {"value": "fast", "unit": "ms"}, )" + ok,
       ":2: 'metrics.time_to_first_token.value' is not a number"},
      {"negative.jsonl", R"("time_to_first_token": {"value": -4, "unit": "ms"}, )" + ok,
       ":2: 'metrics.time_to_first_token.value' is -4 ms; expected a time from 0 to 1e7 s"},
      {"order.jsonl", R"("time_to_first_token": {"value": 901, "unit": "ms"}, )" + ok,
       ":2: 'metrics.request_latency' (0.9 s) is below 'metrics.time_to_first_token' (0.901 s)"},
  };
  const auto first = aiperf_line(0, 10, 2, R"("time_to_first_token": {"value": 1, "unit": "ms"}, )" + ok);
  for (const auto& c : cases) {
    const auto path = write_temp(c.name, first + aiperf_line(1, 10, 2, c.metrics));
    EXPECT_EQ(usage_error(path).rfind(path + c.said, 0), 0u) << usage_error(path);
  }
}

TEST(ClientResults, GuidellmReportGivesEachSuccessfulRequestsLatencies) {
  const auto run = read_vllm_run(data("guidellm-benchmarks.json"));
  EXPECT_EQ(run.origin.client, "GuideLLM");
  EXPECT_EQ(run.origin.arrivals.field, "request_start_time");
  // Starts 0, 1, 2.5, 3 and 3.5 s; time_to_first_token_ms in ms, request_latency in s.
  expect_requests(run, {{0.0, 1024, 64, 0.05, 1.0},
                        {1.0, 600, 32, 0.04, 0.9},
                        {2.5, 512, 16, 0.05, 1.1},
                        {3.0, 2000, 100, 0.06, 1.2},
                        {3.5, 100, 8, 0.05, 1.0}});
  EXPECT_EQ(run.origin.left_out.failed, 2);  // one errored, one incomplete
  EXPECT_EQ(run.origin.left_out.without_latency, 0);
}

TEST(ClientResults, InferencePerfReportGivesItsStreamedRequestsLatencies) {
  const auto run = read_vllm_run(data("inference-perf-per-request.json"));
  EXPECT_EQ(run.origin.client, "inference-perf");
  EXPECT_EQ(run.origin.arrivals.field, "start_time");
  // Kept: items 1, 0 and 4 (streamed, more than one token time), starts 8000.0, 8000.5, 8001.25 s.
  // TTFT: first token time - start (0.25, 0.125, 0.5 s); end-to-end: end - start (1.5, 0.75, 1.75 s).
  expect_requests(run,
                  {{0.0, 1500, 120, 0.25, 1.5}, {0.5, 900, 40, 0.125, 0.75}, {1.25, 2049, 256, 0.5, 1.75}});
  EXPECT_EQ(run.origin.left_out.failed, 1);           // item 2: HTTP 504
  EXPECT_EQ(run.origin.left_out.without_latency, 2);  // item 3 unary, item 5 one token time: no TTFT
}

// An llm-d-benchmark report holds aggregates: 500 requests, 3 failed and 1 incomplete, so 496 at
// the mean lengths (2148.5 -> 2149, 412.25 -> 412 tokens), TTFT 312.5 ms and latency 9.75 s, arriving
// as a Poisson process at its rate_qps of 10/s. YAML and JSON give the same run.
TEST(ClientResults, LlmdReportIsARunAtItsMeans) {
  for (const char* name : {"llmd-benchmark-report-v0.2.1.yaml", "llmd-benchmark-report-v0.2.1.json"}) {
    const auto run = read_vllm_run(data(name));
    ASSERT_EQ(run.requests.size(), 496u) << name;
    EXPECT_EQ(run.origin.left_out.failed, 4) << name;
    EXPECT_DOUBLE_EQ(run.origin.arrivals.poisson_rate, 10.0) << name;
    for (const auto& r : run.requests) {
      EXPECT_EQ(r.prompt_tokens, 2149);
      EXPECT_EQ(r.output_tokens, 412);
      EXPECT_DOUBLE_EQ(r.ttft_s, 0.3125);
      EXPECT_DOUBLE_EQ(r.e2e_s, 9.75);
    }
    // 496 exponential gaps at 10/s: the span is near 49.5 s (its standard deviation is 2.2 s).
    EXPECT_NEAR(run.requests.back().arrival_s, 49.5, 10.0) << name;
  }
}

std::string guidellm_doc(const std::string& second) {
  return R"({"benchmarks": [{"requests": {"successful": [)"
         R"({"request_start_time": 100.5, "prompt_tokens": 10, "output_tokens": 4, )"
         R"("time_to_first_token_ms": 20.0, "request_latency": 0.25}, )" +
         second + R"(], "incomplete": [], "errored": []}}]})";
}

TEST(ClientResults, GuidellmNullLatencyIsLeftOutAndABadOneRefused) {
  const auto run = read_vllm_run(write_temp(
      "null.json", guidellm_doc(R"({"request_start_time": 101.0, "prompt_tokens": 10, "output_tokens": 4, )"
                                R"("time_to_first_token_ms": null, "request_latency": 0.3})")));
  expect_requests(run, {{0.0, 10, 4, 0.02, 0.25}});
  EXPECT_EQ(run.origin.left_out.without_latency, 1);

  const auto bad = write_temp(
      "bad.json", guidellm_doc(R"({"request_start_time": 101.0, "prompt_tokens": 10, "output_tokens": 4, )"
                               R"("time_to_first_token_ms": "20", "request_latency": 0.3})"));
  EXPECT_EQ(usage_error(bad),
            bad +
                ": benchmarks[0].requests.successful[1]: 'time_to_first_token_ms' is \"20\"; expected "
                "milliseconds from 0 to 1e10");
  const auto order = write_temp(
      "order.json", guidellm_doc(R"({"request_start_time": 101.0, "prompt_tokens": 10, "output_tokens": 4, )"
                                 R"("time_to_first_token_ms": 400, "request_latency": 0.3})"));
  EXPECT_NE(usage_error(order).find("'request_latency' (0.3 s) is below 'time_to_first_token_ms' (400 ms)"),
            std::string::npos);
}

// vllm bench serve --save-result --save-detailed: the per-request lists, start_times relative to
// the first, the end the first token plus the gaps; a failed request (0 tokens) counted.
TEST(ClientResults, VllmSaveDetailedIsReadWithItsStartTimes) {
  const auto run = read_vllm_run(write_temp(
      "bench.json",
      R"({"request_rate": 4, "start_times": [10.5, 10.0, 11.0], "input_lens": [100, 200, 300],)"
      R"( "output_lens": [3, 2, 0], "ttfts": [0.05, 0.04, 0.0], "itls": [[0.01, 0.02], [0.03], []],)"
      R"( "errors": ["", "", "timeout"]})"));
  EXPECT_EQ(run.origin.client, "vllm bench serve");
  expect_requests(run, {{0.0, 200, 2, 0.04, 0.07}, {0.5, 100, 3, 0.05, 0.08}});
  EXPECT_EQ(run.origin.left_out.failed, 1);
  EXPECT_EQ(
      run_origin_text(run.origin),
      "vllm bench serve, arrivals from start_times; left out of the fit: 1 request the client recorded as "
      "failed (or without an output token)");
}

TEST(ClientResults, JsonLinesOfNoKnownClientListWhatIsRead) {
  const auto path = write_temp("other.jsonl", "{\"a\": 1}\n{\"a\": 2}\n");
  const auto said = usage_error(path);
  EXPECT_EQ(said.rfind(path + ": not valid JSON; expected vllm bench serve", 0), 0u) << said;
  EXPECT_NE(said.find("AIPerf's profile_export.jsonl, GuideLLM's benchmarks.json, inference-perf's "
                      "per_request_lifecycle_metrics.json, an llm-d-benchmark report (YAML or JSON: its "
                      "aggregates) or a residency-vllm CSV"),
            std::string::npos)
      << said;
}

}  // namespace
}  // namespace kvb
