// `vllm bench serve --save-result --save-detailed` JSON read as a trace and as calibrate's run, from
// one reader (trace/vllm_bench_results), against figures worked out by hand from
// tests/data/traces/vllm-bench-detailed.json (four requests, the third failed: output_lens 0).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/vllm_results.hpp"
#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/client_trace_expect.hpp"
#include "trace/trace_reader.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) {
  std::string path = std::string(KVBENCH_TEST_DATA) + "/traces/";
  return path += name;
}

// start_times 100.0, 100.5, 100.25 (failed) and 101.0: in start order 0, 0.5 and 1.0 s.
TEST(VllmBenchTrace, CompletedRequestsReplayInStartOrder) {
  TraceReader reader(data("vllm-bench-detailed.json"), TraceOptions{});
  EXPECT_EQ(reader.format(), TraceFormat::kVllmBench);
  EXPECT_FALSE(reader.reuse_recorded());
  test::expect_requests(reader, {{0, 512, 16}, {0.5, 1024, 32}, {1.0, 2048, 8}});
  EXPECT_EQ(reader.failed_requests(), 1);
}

// The same file as calibrate reads it: e2e = TTFT + the gaps (0.05 + 15 x 0.01; 0.08 + 31 x 0.012;
// 0.12 + 7 x 0.02), in the lists' order (calibrate sorts later).
TEST(VllmBenchTrace, LatenciesAreTheTtftPlusTheGaps) {
  std::ifstream in(data("vllm-bench-detailed.json"));
  const auto run = vllm_bench_run(nlohmann::json::parse(in), "f", kMaxRunTokens);
  ASSERT_EQ(run.requests.size(), 3u);
  EXPECT_EQ(run.failed, 1);
  EXPECT_DOUBLE_EQ(run.poisson_rate, 0);
  EXPECT_NEAR(run.requests[0].e2e_s, 0.20, 1e-12);
  EXPECT_NEAR(run.requests[1].e2e_s, 0.452, 1e-12);
  EXPECT_NEAR(run.requests[2].e2e_s, 0.26, 1e-12);
  EXPECT_DOUBLE_EQ(run.requests[1].start_s, 0.5);
  EXPECT_EQ(run.requests[2].index, 3u);
}

// Without start_times the arrivals are drawn at request_rate: n draws, the first at 0, increasing.
TEST(VllmBenchTrace, NoStartTimesDrawsArrivalsAtTheRate) {
  const auto doc = nlohmann::json::parse(
      R"({"request_rate": 2, "input_lens": [10, 20, 30], "output_lens": [2, 2, 2], "ttfts": [0.1, 0.1, 0.1],)"
      R"( "itls": [[0.01], [0.01], [0.01]]})");
  const auto run = vllm_bench_run(doc, "f", kMaxRunTokens);
  EXPECT_DOUBLE_EQ(run.poisson_rate, 2);
  ASSERT_EQ(run.requests.size(), 3u);
  EXPECT_DOUBLE_EQ(run.requests[0].start_s, 0);
  EXPECT_LT(run.requests[0].start_s, run.requests[1].start_s);
  EXPECT_LT(run.requests[1].start_s, run.requests[2].start_s);
}

TEST(VllmBenchTrace, ABadLengthNamesTheFieldAndIndex) {
  const auto doc = nlohmann::json::parse(
      R"({"start_times": [0, 1], "input_lens": [10, -3], "output_lens": [2, 2], "ttfts": [0.1, 0.1],)"
      R"( "itls": [[0.01], [0.01]]})");
  try {
    (void)vllm_bench_run(doc, "f.json", kMaxRunTokens);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: input_lens[1] is -3; expected 0 (a failed request)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvb
