// GuideLLM's benchmarks.json read as a trace, against counts worked out by hand from
// tests/data/traces/guidellm-benchmarks.json (two benchmarks; five successful requests, one
// errored, one incomplete).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/client_trace_expect.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

nlohmann::json fixture() {
  std::ifstream in(data("guidellm-benchmarks.json"));
  return nlohmann::json::parse(in);
}

// A file of its own per test: ctest runs this binary's tests in parallel, each in its own process.
std::string write_temp(const std::string& text) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto path =
      (std::filesystem::temp_directory_path() / ("kvbench-guidellm-" + std::string(test->name()) + ".json"))
          .string();
  std::ofstream(path) << text;
  return path;
}

// Starts (s after the first): benchmark 0's 0 and 1, benchmark 1's 3, 2.5 and 3.5, sorted.
void expect_fixture_requests(const std::string& path) {
  TraceReader reader(path, TraceOptions{});
  EXPECT_EQ(reader.format(), TraceFormat::kGuidellm);
  EXPECT_FALSE(reader.reuse_recorded());
  test::expect_requests(reader, {{0, 1024, 64}, {1, 600, 32}, {2.5, 512, 16}, {3, 2000, 100}, {3.5, 100, 8}});
  EXPECT_EQ(reader.failed_requests(), 2);  // one errored, one incomplete
}

TEST(GuidellmTrace, SuccessfulRequestsOfEveryBenchmarkInStartOrder) {
  expect_fixture_requests(data("guidellm-benchmarks.json"));
}

// The same report written over many lines, or on one line past the 16 MiB a trace line may
// hold (a long output text), is the same trace.
TEST(GuidellmTrace, APrettyPrintedOrHugeReportReadsTheSame) {
  expect_fixture_requests(write_temp(fixture().dump(2)));
  auto doc = fixture();
  doc["benchmarks"][0]["requests"]["successful"][0]["output"] = std::string(17u << 20, 'x');
  expect_fixture_requests(write_temp(doc.dump()));
  std::filesystem::remove(write_temp(""));
}

// Releases before 0.4 named the start `start_time`.
TEST(GuidellmTrace, AnOlderReportsStartTimeIsRead) {
  const auto path = write_temp(
      R"({"benchmarks": [{"requests": {"successful": [{"start_time": 10.0, "prompt_tokens": 5, "output_tokens": 1},)"
      R"({"start_time": 12.5, "prompt_tokens": 7, "output_tokens": 2}], "incomplete": [], "errored": []}}]})");
  TraceReader reader(path, TraceOptions{});
  TraceRequest r;
  ASSERT_TRUE(reader.next(r));
  ASSERT_TRUE(reader.next(r));
  EXPECT_NEAR(r.arrival_s, 2.5, 1e-9);
  EXPECT_EQ(r.prompt_tokens, 7);
  std::filesystem::remove(path);
}

std::string error_for(const std::string& text) {
  return test::trace_error(text, "kvbench-guidellm-bad.json");
}

TEST(GuidellmTrace, ABadRequestIsRefusedNamingItsPlaceAndField) {
  auto doc = fixture();
  auto& second = doc["benchmarks"][1]["requests"]["successful"][0];
  second.erase("prompt_tokens");
  const auto missing =
      "benchmarks[1].requests.successful[0]: 'prompt_tokens' is missing or not a whole number";
  EXPECT_NE(error_for(doc.dump()).find(missing), std::string::npos) << error_for(doc.dump());
  second["prompt_tokens"] = nullptr;  // GuideLLM's None: the server reported no usage
  EXPECT_NE(error_for(doc.dump()).find(missing), std::string::npos);
  second["prompt_tokens"] = 2000;
  second["request_start_time"] = -1.0;
  EXPECT_NE(error_for(doc.dump()).find("successful[0]: 'request_start_time' is -1.0"), std::string::npos);
  EXPECT_NE(error_for(R"({"benchmarks": []})").find("a GuideLLM report with no successful request"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"benchmarks": [{"requests": {}}]})")
                .find("benchmarks[0].requests: 'successful' is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace kvb
