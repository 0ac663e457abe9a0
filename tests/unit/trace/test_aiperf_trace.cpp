// AIPerf's profile_export.jsonl read as a trace, against counts worked out by hand from
// tests/data/traces/aiperf-profile-export.jsonl (six records, written in end order; one failed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/client_trace_expect.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

TEST(AiperfTrace, RecordsComeOutInStartOrderWithTheirLengths) {
  TraceReader reader(data("aiperf-profile-export.jsonl"), TraceOptions{});
  EXPECT_EQ(reader.format(), TraceFormat::kAiperf);
  EXPECT_FALSE(reader.reuse_recorded());
  // Starts (ms after 1764000000000000000 ns): lines 2, 1, 3, 5, 6 = 0, 250, 500, 1000, 1500;
  // line 4 is a failed request (its "error" is set) and is left out.
  const auto ids = test::expect_requests(
      reader, {{0, 800, 50}, {0.25, 1200, 100}, {0.5, 3000, 200}, {1.0, 513, 1}, {1.5, 2048, 128}});
  EXPECT_EQ(reader.failed_requests(), 1);
  EXPECT_EQ(ids.size(), 17u);  // no prefix recorded: every block its request's own
}

TEST(AiperfTrace, TheAnalysisCountsNoReuseAndSaysWhatWasLeftOut) {
  TraceOptions o;
  o.speed = 2;
  const auto a = analyze_trace(data("aiperf-profile-export.jsonl"), o);
  EXPECT_EQ(a.format, TraceFormat::kAiperf);
  EXPECT_EQ(a.requests, 5);
  EXPECT_EQ(a.failed_requests, 1);
  EXPECT_NEAR(a.duration_s, 1.5 / 2, 1e-9);
  EXPECT_DOUBLE_EQ(a.unbounded_prefix_hit_rate, 0.0);
  EXPECT_EQ(a.prompt.max, 3000);  // line 3
}

// One record per file, as `kvbench trace` would meet it: the UsageError's text.
std::string error_for(const std::string& lines) {
  return test::trace_error(lines, "kvbench-aiperf-bad.jsonl");
}

std::string record(const std::string& start, const std::string& isl, const std::string& error = "null") {
  return R"({"metadata": {"session_num": 0, "request_start_ns": )" + start +
         R"(, "request_end_ns": 9000000000, "worker_id": "w", "record_processor_id": "p", )"
         R"("benchmark_phase": "profiling"}, "metrics": {)" +
         isl + R"("output_sequence_length": {"value": 10, "unit": "tokens"}}, "error": )" + error + "}\n";
}

TEST(AiperfTrace, ABadRecordIsRefusedNamingItsLineAndField) {
  const std::string ok = R"("input_sequence_length": {"value": 600, "unit": "tokens"}, )";
  const auto good = record("1000000000", ok);
  EXPECT_NE(error_for(good + record("2000000000", ""))
                .find("kvbench-aiperf-bad.jsonl:2: 'metrics.input_sequence_length.value' is missing"),
            std::string::npos);
  EXPECT_NE(error_for(good + record("2000000000",
                                    R"("input_sequence_length": {"value": "600", "unit": "tokens"}, )"))
                .find(":2: 'metrics.input_sequence_length.value' is missing or not a whole number"),
            std::string::npos);
  EXPECT_NE(error_for(good + record("-5", ok)).find(":2: 'metadata.request_start_ns' is -5"),
            std::string::npos);
  EXPECT_NE(error_for(good + record("\"soon\"", ok)).find(":2: 'metadata.request_start_ns' is missing"),
            std::string::npos);
  EXPECT_NE(error_for(record("1000000000", R"("input_sequence_length": {"value": 600, "unit": "ms"}, )"))
                .find(":1: 'metrics.input_sequence_length.unit' is \"ms\"; expected \"tokens\""),
            std::string::npos);
  EXPECT_NE(error_for(good + R"({"metadata": 1, "metrics": {}})" + "\n").find(":2: 'metadata' or 'metrics'"),
            std::string::npos);
  const auto failed = record("1000000000", "", R"({"code": 500, "type": "E", "message": "m"})");
  EXPECT_NE(error_for(failed).find("all 1 AIPerf records are failed requests"), std::string::npos);
  EXPECT_NE(error_for("").find("no records"), std::string::npos);
}

}  // namespace
}  // namespace kvb
