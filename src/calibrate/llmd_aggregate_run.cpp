#include "calibrate/llmd_aggregate_run.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/yaml_reader.hpp"
#include "trace/llmd_report.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {
namespace {

template <typename T>
const T& required(const std::optional<T>& v, const std::string& path, const char* field) {
  if (!v) {
    throw UsageError(
        fmt::format("{}: an llm-d-benchmark report without {}; expected it to build a run from its "
                    "aggregates, or the run's per-request file",
                    path, field));
  }
  return *v;
}

std::int64_t mean_tokens(const std::optional<LlmdStatistic>& s, const std::string& path, const char* field) {
  const double mean = required(s, path, field).mean;
  if (!(mean >= 0.5) || mean > static_cast<double>(kMaxRunTokens)) {
    throw UsageError(
        fmt::format("{}: {} mean is {:g}; expected 1 to {} tokens", path, field, mean, kMaxRunTokens));
  }
  return std::llround(mean);
}

// The report's aggregates as a run (the header says how).
VllmRun run_at_means(const std::string& path, const YAML::Node& doc) {
  const auto report = llmd_report(doc, fmt::format("llm-d-benchmark report '{}'", path));
  const auto total = required(report.requests, path, "results.request_performance.aggregate.requests.total");
  const auto left_out = report.failures.value_or(0) + report.incomplete.value_or(0);
  if (total - left_out < 1)
    throw UsageError(fmt::format("{}: {} requests, {} failed or incomplete; expected at least one completed",
                                 path, total, left_out));
  const double rate = required(report.rate_qps, path, "scenario.load.standardized.rate_qps");
  const auto prompt = mean_tokens(report.input_length, path, "requests.input_length");
  const auto output = mean_tokens(report.output_length, path, "requests.output_length");
  const double ttft = required(report.ttft_s, path, "latency.time_to_first_token").mean;
  const double e2e = std::max(ttft, required(report.request_latency_s, path, "latency.request_latency").mean);
  VllmRun run{path,
              {},
              {"llm-d-benchmark report (aggregates: every request at the mean lengths and latencies)",
               {},
               {.failed = left_out, .without_latency = 0}}};
  const auto n = static_cast<std::size_t>(total - left_out);
  const auto arrivals =
      poisson_arrivals_at(rate, n, fmt::format("{}: scenario.load.standardized.rate_qps", path));
  run.origin.arrivals = {.field = "", .poisson_rate = rate};
  for (const double at : arrivals) run.requests.push_back({at, prompt, output, ttft, e2e});
  return run;
}

}  // namespace

VllmRun llmd_aggregate_run(const std::string& path, const std::string& text) {
  return run_at_means(path, YamlObject::parse(text, fmt::format("llm-d-benchmark report '{}'", path)).node());
}

std::optional<VllmRun> llmd_yaml_run(const std::string& path, const std::string& text) {
  if (!opens_as_yaml_report(text)) return std::nullopt;
  YAML::Node doc;
  try {
    doc = YamlObject::parse(text, fmt::format("llm-d-benchmark report '{}'", path)).node();
  } catch (const UsageError&) {
    return std::nullopt;  // no YAML document: not a report; the other readers say what it is
  }
  if (!is_llmd_report(doc)) return std::nullopt;
  return run_at_means(path, doc);
}

}  // namespace kvb
