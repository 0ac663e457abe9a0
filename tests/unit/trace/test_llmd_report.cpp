// llm-d-benchmark's report (v0.2.1): its aggregates read in seconds, tokens and per second, against
// tests/data/traces/llmd-benchmark-report-v0.2.1.{yaml,json} (the same figures; the JSON's
// concurrency is 64, the YAML's .inf); and `kvbench trace` refusing it as no trace.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "test_paths.hpp"
#include "trace/llmd_report.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/traces/" + name; }

TEST(LlmdReport, AggregatesAreReadInSecondsTokensAndRates) {
  const auto r = read_llmd_report(data("llmd-benchmark-report-v0.2.1.yaml"));
  EXPECT_EQ(r.version, "0.2.1");
  EXPECT_EQ(r.tool, "inference-perf");
  EXPECT_EQ(r.tool_version, "0.6.1");
  EXPECT_DOUBLE_EQ(*r.rate_qps, 10.0);
  EXPECT_TRUE(std::isinf(*r.concurrency));  // .inf: unbounded
  EXPECT_EQ(*r.requests, 500);
  EXPECT_EQ(*r.failures, 3);
  EXPECT_EQ(*r.incomplete, 1);
  EXPECT_DOUBLE_EQ(r.input_length->mean, 2148.5);
  EXPECT_DOUBLE_EQ(*r.input_length->p99, 4000.0);
  EXPECT_FALSE(r.output_length->p90.has_value());
  // TTFT in ms: 312.5 ms = 0.3125 s; p90 750 ms.
  EXPECT_DOUBLE_EQ(r.ttft_s->mean, 0.3125);
  EXPECT_DOUBLE_EQ(*r.ttft_s->p90, 0.75);
  EXPECT_DOUBLE_EQ(*r.ttft_s->min, 0.045);
  EXPECT_DOUBLE_EQ(r.itl_s->mean, 0.0215);   // 21.5 ms/token
  EXPECT_DOUBLE_EQ(r.tpot_s->mean, 0.0225);  // already s/token
  EXPECT_DOUBLE_EQ(r.ntpot_s->mean, 0.031);
  EXPECT_DOUBLE_EQ(*r.request_latency_s->p90, 14.25);
  EXPECT_DOUBLE_EQ(r.request_rate->mean, 9.8);
  EXPECT_DOUBLE_EQ(r.output_token_rate->mean, 4122.5);
  EXPECT_DOUBLE_EQ(r.total_token_rate->mean, r.input_token_rate->mean + r.output_token_rate->mean);
}

TEST(LlmdReport, TheJsonFormReadsTheSame) {
  const auto y = read_llmd_report(data("llmd-benchmark-report-v0.2.1.yaml"));
  const auto j = read_llmd_report(data("llmd-benchmark-report-v0.2.1.json"));
  EXPECT_DOUBLE_EQ(*j.concurrency, 64.0);
  EXPECT_DOUBLE_EQ(j.ttft_s->mean, y.ttft_s->mean);
  EXPECT_DOUBLE_EQ(*j.ttft_s->p99, *y.ttft_s->p99);
  EXPECT_EQ(*j.requests, *y.requests);
}

std::string temp(const std::string& name, const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string report_error(const std::string& text) {
  const auto path = temp("kvbench-llmd-bad.yaml", text);
  std::string what = "no error";
  try {
    read_llmd_report(path);
  } catch (const UsageError& e) {
    what = e.what();
  }
  std::filesystem::remove(path);
  return what;
}

TEST(LlmdReport, ABadFieldIsRefusedNamingIt) {
  const std::string head =
      "version: '0.2.1'\nrun: {uid: x}\nresults:\n  request_performance:\n    aggregate:\n";
  EXPECT_NE(
      report_error(head + "      latency:\n        time_to_first_token: {mean: 3, units: tokens/s}\n")
          .find("'results.request_performance.aggregate.latency.time_to_first_token.units' is 'tokens/s'; "
                "expected one of s, ms"),
      std::string::npos);
  EXPECT_NE(report_error(head + "      latency:\n        request_latency: {units: s}\n")
                .find("'results.request_performance.aggregate.latency.request_latency.mean' is missing"),
            std::string::npos);
  EXPECT_NE(report_error(head + "      latency:\n        request_latency: {mean: -2, units: s}\n")
                .find("'results.request_performance.aggregate.latency.request_latency.mean' is negative"),
            std::string::npos);
  EXPECT_NE(report_error(head + "      requests: {total: many}\n")
                .find("'results.request_performance.aggregate.requests.total' is not a whole number"),
            std::string::npos);
  EXPECT_NE(
      report_error("version: '0.1'\nrun: {uid: x}\nresults: {}\n").find("'version' is '0.1'; expected 0.2"),
      std::string::npos);
  EXPECT_NE(report_error("a: 1\n").find("expected an llm-d-benchmark report"), std::string::npos);
}

// The report, YAML or JSON, is no trace: refused with what it is and what to give instead.
TEST(LlmdReport, TraceSaysItHoldsAggregatesNotRequests) {
  for (const auto* name : {"llmd-benchmark-report-v0.2.1.yaml", "llmd-benchmark-report-v0.2.1.json"}) {
    try {
      TraceReader reader(data(name), TraceOptions{});
      ADD_FAILURE() << name << " read as a trace";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("an llm-d-benchmark report (version "), std::string::npos) << what;
      EXPECT_NE(what.find("not its requests, so no trace to replay"), std::string::npos) << what;
    }
  }
  // A YAML file that is not such a report is still refused as a CSV without its columns.
  const auto path = temp("kvbench-not-llmd.yaml", "model: x\nrate: 3\n");
  try {
    TraceReader reader(path, TraceOptions{});
    ADD_FAILURE() << "read as a trace";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("neither a JSON record nor a CSV header"), std::string::npos);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kvb
