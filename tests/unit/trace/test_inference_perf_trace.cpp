// inference-perf's per_request_lifecycle_metrics.json read as a trace and as per-request latencies,
// against figures worked out by hand from tests/data/traces/inference-perf-per-request.json (six
// requests in end order, one failed) and inference-perf-v0.4-per-request.json (the older shape).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/client_trace_expect.hpp"
#include "trace/inference_perf_records.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

TEST(InferencePerfTrace, RequestsComeOutInStartOrderWithTheirLengths) {
  TraceReader reader(data("inference-perf-per-request.json"), TraceOptions{});
  EXPECT_EQ(reader.format(), TraceFormat::kInferencePerf);
  EXPECT_FALSE(reader.reuse_recorded());
  // start_time - 8000 s of the successful items [1], [0], [4], [3], [5]; [2] failed (HTTP 504).
  const auto ids = test::expect_requests(
      reader, {{0, 1500, 120}, {0.5, 900, 40}, {1.25, 2049, 256}, {2.0, 600, 8}, {3.5, 300, 1}});
  EXPECT_EQ(reader.failed_requests(), 1);
  EXPECT_EQ(ids.size(), 13u);  // no prefix recorded: every block its request's own
}

TEST(InferencePerfTrace, LatenciesAreTheClientsOwn) {
  const auto report = read_inference_perf_report(data("inference-perf-per-request.json"));
  ASSERT_EQ(report.successful.size(), 5u);
  EXPECT_EQ(report.failed, 1);
  const std::vector<std::size_t> index{1, 0, 4, 3, 5};
  // TTFT: output_token_times[0] - start_time where more than one token time was recorded.
  const std::vector<double> ttft{0.25, 0.125, 0.5, -1, -1}, e2e{1.5, 0.75, 1.75, 0.5, 0.5};
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& r = report.successful[i];
    EXPECT_EQ(r.index, index[i]) << i;
    ASSERT_TRUE(r.e2e_s.has_value()) << i;
    EXPECT_NEAR(*r.e2e_s, e2e[i], 1e-9) << i;
    EXPECT_EQ(r.ttft_s.has_value(), ttft[i] >= 0) << i;  // [3] unary, [5] one token time
    if (r.ttft_s) {
      EXPECT_NEAR(*r.ttft_s, ttft[i], 1e-9) << i;
    }
  }
}

TEST(InferencePerfTrace, AReportBeforeV06IsRead) {
  const auto report = read_inference_perf_report(data("inference-perf-v0.4-per-request.json"));
  ASSERT_EQ(report.successful.size(), 2u);
  EXPECT_EQ(report.failed, 1);
  EXPECT_EQ(report.successful[0].prompt_tokens, 400);  // start 100.0: no token times
  EXPECT_FALSE(report.successful[0].ttft_s.has_value());
  EXPECT_EQ(report.successful[1].output_tokens, 30);
  EXPECT_NEAR(*report.successful[1].ttft_s, 0.25, 1e-9);
  const auto a = analyze_trace(data("inference-perf-v0.4-per-request.json"), TraceOptions{});
  EXPECT_EQ(a.format, TraceFormat::kInferencePerf);
  EXPECT_EQ(a.requests, 2);
  EXPECT_EQ(a.failed_requests, 1);
  EXPECT_NEAR(a.duration_s, 0.25, 1e-9);
}

std::string error_for(const std::string& text) {
  return test::trace_error(text, "kvbench-inference-perf-bad.json");
}

nlohmann::json fixture() {
  std::ifstream in(data("inference-perf-per-request.json"));
  return nlohmann::json::parse(in);
}

TEST(InferencePerfTrace, ABadRequestIsRefusedNamingItsPlaceAndField) {
  auto doc = fixture();
  doc[4]["info"]["request_metrics"]["text"].erase("input_tokens");
  EXPECT_NE(
      error_for(doc.dump(2))
          .find("kvbench-inference-perf-bad.json': [4]: 'info.request_metrics.text.input_tokens' is missing"),
      std::string::npos)
      << error_for(doc.dump(2));
  doc = fixture();
  doc[0]["end_time"] = "later";
  EXPECT_NE(error_for(doc.dump()).find("[0]: 'end_time' is missing or not a number"), std::string::npos);
  doc = fixture();
  doc[1]["end_time"] = 7999.0;
  EXPECT_NE(error_for(doc.dump()).find("[1]: 'end_time' is before 'start_time'"), std::string::npos);
  doc = fixture();
  doc[1]["info"]["response_metrics"]["output_token_times"][0] = 7999.5;
  EXPECT_NE(error_for(doc.dump()).find("[1]: 'output_token_times[0]' is 0.500000 s before"),
            std::string::npos);
  doc = fixture();
  doc[3]["info"]["response_metrics"] = nullptr;  // a success must say how many tokens came back
  EXPECT_NE(error_for(doc.dump()).find("[3]: 'info.response_metrics.output_tokens' is missing"),
            std::string::npos);
  doc = fixture();
  doc[2]["error"] = nullptr;  // the failed item's input_tokens is 0: refused once it counts
  EXPECT_NE(error_for(doc.dump()).find("[2]: 'info.request_metrics.text.input_tokens' is 0; expected 1"),
            std::string::npos);
  EXPECT_NE(error_for("[]").find("an empty JSON list: no records"), std::string::npos);
  EXPECT_NE(error_for("[1, 2]").find("neither a GuideLLM report"), std::string::npos);
  EXPECT_NE(error_for("[{\"start_time\": 1,").find("not valid JSON"), std::string::npos);
  doc = nlohmann::json::array({fixture()[2]});
  EXPECT_NE(error_for(doc.dump()).find("no successful request (1 failed)"), std::string::npos);
}

}  // namespace
}  // namespace kvb
