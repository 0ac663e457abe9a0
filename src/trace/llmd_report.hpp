#pragma once
// llm-d-benchmark's benchmark report, versions 0.2 and 0.2.1 (YAML, or the same document as JSON):
// github.com/llm-d/llm-d-benchmark llmdbenchmark/analysis/benchmark_report/schema_v0_2.py and
// schema_v0_2_1.py (v0.2.1 adds optional multimodal and time-series fields only), units from
// base.py (Units, UNITS_TIME, UNITS_GEN_LATENCY, ...), example br_v0_2_1_example.yaml; read at
// commit 8bc9f1ddd873 (schema_v0_2_1.py last changed in d61bdbc85f00). The report holds a run's
// aggregates, not its requests, so it is no trace: what is read here is
//  * scenario.load.standardized: tool, tool_version, rate_qps, concurrency (.inf: unbounded);
//  * results.request_performance.aggregate.requests: total, failures, incomplete, input_length and
//    output_length (Statistics, units count);
//  * ...aggregate.latency: time_to_first_token, time_per_output_token, inter_token_latency,
//    normalized_time_per_output_token, request_latency (units s or ms; s/token or ms/token);
//  * ...aggregate.throughput: input/output/total_token_rate (tokens/s), request_rate (queries/s).
// Statistics {"units", "mean", "stddev", "min", "p50", "p90", "p95", "p99", "max", ...}: "units"
// and "mean" required, as the schema's Statistics class has them.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/errors.hpp"

namespace kvb {

// An object (JSON) or mapping (YAML) holding "version", "run" and "results": the report's root
// (BenchmarkReportV02's required fields).
bool is_llmd_report(const nlohmann::json& doc);
bool is_llmd_report(const YAML::Node& doc);

// Whether `text`'s first non-blank line is a top-level YAML key ("results:", "version: 0.2.1") or a
// document marker: only such a file is parsed as YAML to see whether it is a report, so a CSV or a
// vLLM log is never read away by the attempt.
bool opens_as_yaml_report(const std::string& text);

// One Statistics, in seconds (ms and ms/token converted), tokens or per second.
struct LlmdStatistic {
  double mean = 0;
  std::optional<double> stddev, min, p50, p90, p95, p99, max;
};

struct LlmdReport {
  std::string version;                // "0.2" or "0.2.1"
  std::string tool, tool_version;     // the load generator, where the scenario names it
  std::optional<double> rate_qps;     // the load's requested rate
  std::optional<double> concurrency;  // infinity for .inf
  std::optional<std::int64_t> requests, failures, incomplete;
  std::optional<LlmdStatistic> input_length, output_length;                            // tokens per request
  std::optional<LlmdStatistic> ttft_s, tpot_s, itl_s, ntpot_s, request_latency_s;      // s, s/token
  std::optional<LlmdStatistic> input_token_rate, output_token_rate, total_token_rate;  // tokens/s
  std::optional<LlmdStatistic> request_rate;                                           // per second
};

// The report's aggregates; UsageError "<origin>: '<dotted.field>' ..." for a version other than
// 0.2 or 0.2.1, or a field read that is ill-typed or in units the schema does not allow.
LlmdReport llmd_report(const YAML::Node& doc, const std::string& origin);

// The file (YAML or JSON, at most 64 MiB) read and parsed as above: calibrate's reader.
LlmdReport read_llmd_report(const std::string& path);

// The root's "version" as text (a string, or a number's JSON spelling).
std::string llmd_version(const nlohmann::json& doc);

// What `kvbench trace` says of such a report: aggregates, no requests to replay.
UsageError llmd_report_is_no_trace(const std::string& shown, const std::string& version);

}  // namespace kvb
