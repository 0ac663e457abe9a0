#include "trace/aiperf_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

std::int64_t start_ns(const nlohmann::json& metadata, const std::string& where) {
  const char* key = metadata.contains("request_start_ns") ? "request_start_ns" : "timestamp_ns";
  const auto it = metadata.find(key);
  if (it == metadata.end() || !it->is_number_integer()) {
    throw UsageError(
        fmt::format("{}: 'metadata.request_start_ns' is missing or not a whole number "
                    "(ns since the epoch)",
                    where));
  }
  const auto ns = it->get<std::int64_t>();
  if (ns < 0)
    throw UsageError(fmt::format("{}: 'metadata.{}' is {}; expected a time from 0", where, key, ns));
  return ns;
}

// metrics.<tag>: {"value": whole number of tokens, "unit": "tokens"}.
std::int64_t tokens_metric(const nlohmann::json& metrics, const char* tag, std::int64_t lo,
                           const std::string& where) {
  const auto it = metrics.find(tag);
  if (it == metrics.end() || !it->is_object() || !it->contains("value") ||
      !it->at("value").is_number_integer())
    throw UsageError(fmt::format("{}: 'metrics.{}.value' is missing or not a whole number", where, tag));
  if (it->contains("unit") && it->at("unit") != "tokens") {
    throw UsageError(
        fmt::format("{}: 'metrics.{}.unit' is {}; expected \"tokens\"", where, tag, it->at("unit").dump()));
  }
  const auto v = it->at("value").get<std::int64_t>();
  if (v < lo || v > kMaxTraceTokens) {
    throw UsageError(fmt::format("{}: 'metrics.{}.value' is {}; expected {} to {} tokens", where, tag, v, lo,
                                 kMaxTraceTokens));
  }
  return v;
}

// metrics.<tag>: {"value": a time, "unit": one of MetricTimeUnit's tags}, in seconds; nullopt where
// the record has no such metric. Within 1e7 s, as every latency kvbench reads.
std::optional<double> seconds_metric(const nlohmann::json& metrics, const char* tag,
                                     const std::string& where) {
  const auto it = metrics.find(tag);
  if (it == metrics.end()) return std::nullopt;
  if (!it->is_object() || !it->contains("value") || !it->at("value").is_number())
    throw UsageError(fmt::format("{}: 'metrics.{}.value' is not a number", where, tag));
  constexpr std::pair<const char*, double> kUnits[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"sec", 1.0}};
  const auto unit = it->find("unit");
  const auto known = std::find_if(std::begin(kUnits), std::end(kUnits), [&](const auto& u) {
    return unit != it->end() && unit->is_string() && unit->get<std::string>() == u.first;
  });
  if (known == std::end(kUnits)) {
    throw UsageError(fmt::format("{}: 'metrics.{}.unit' is {}; expected \"ns\", \"us\", \"ms\" or \"sec\"",
                                 where, tag, unit == it->end() ? "missing" : unit->dump()));
  }
  const double value = it->at("value").get<double>();
  const double seconds = value * known->second;
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e7) {
    throw UsageError(fmt::format("{}: 'metrics.{}.value' is {} {}; expected a time from 0 to 1e7 s", where,
                                 tag, it->at("value").dump(), known->first));
  }
  return seconds;
}

}  // namespace

bool is_aiperf_record(const nlohmann::json& j) {
  return j.is_object() && j.contains("metadata") && j.at("metadata").is_object() && j.contains("metrics") &&
         j.at("metrics").is_object();
}

std::optional<AiperfRecord> aiperf_record(const nlohmann::json& j, const std::string& where) {
  if (!is_aiperf_record(j)) {
    throw UsageError(fmt::format(
        "{}: 'metadata' or 'metrics' is missing or not an object; expected an AIPerf record", where));
  }
  if (j.contains("error") && !j.at("error").is_null()) return std::nullopt;
  AiperfRecord r;
  r.start_ns = start_ns(j.at("metadata"), where);
  const auto& metrics = j.at("metrics");
  r.prompt_tokens = tokens_metric(metrics, "input_sequence_length", 1, where);
  r.output_tokens = tokens_metric(metrics, "output_sequence_length", 0, where);
  r.ttft_s = seconds_metric(metrics, "time_to_first_token", where);
  r.e2e_s = seconds_metric(metrics, "request_latency", where);
  // Both are measured to content responses from the same start: the last is never before the first
  // (a nanosecond of slack for the unit's rounding).
  if (r.ttft_s && r.e2e_s && *r.e2e_s < *r.ttft_s - 1e-9) {
    throw UsageError(
        fmt::format("{}: 'metrics.request_latency' ({:g} s) is below 'metrics.time_to_first_token' ({:g} s); "
                    "expected the last response after the first",
                    where, *r.e2e_s, *r.ttft_s));
  }
  return r;
}

// AIPerf writes a record as its result is processed, so starts come out of order: the export is
// read whole (records of start, lengths and line: no block ids yet) and sorted by start.
void TraceReader::read_aiperf() {
  std::vector<std::pair<AiperfRecord, std::int64_t>> records;
  std::string line = pending_;
  have_pending_ = false;
  do {
    if (trim_copy(line).empty()) continue;
    const auto where = fmt::format("{}:{}", shown_, line_number_);
    const auto r = aiperf_record(json_record(line, where), where);
    if (!r) {
      ++failed_;
      continue;
    }
    if (static_cast<std::int64_t>(records.size()) >= kMaxAiperfRecords)
      throw UsageError(
          fmt::format("{}: more than 10,000,000 AIPerf records; expected at most that many", where));
    records.emplace_back(*r, line_number_);
  } while (next_line(line));
  if (records.empty()) {
    throw UsageError(
        fmt::format("trace '{}': all {} AIPerf records are failed requests (a non-null "
                    "'error'); expected at least one that succeeded",
                    shown_, failed_));
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.first.start_ns < b.first.start_ns; });
  const auto first = records.front().first.start_ns;
  for (const auto& [r, at_line] : records) {
    const auto where = fmt::format("{}:{}", shown_, at_line);
    const double arrival = arrival_after_speed(static_cast<double>(r.start_ns - first) * 1e-9, where);
    held_.push_back({arrival, r.prompt_tokens, r.output_tokens, at_line});
  }
}

}  // namespace kvb
