#include "trace/guidellm_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "trace/token_count.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

double start_seconds(const nlohmann::json& r, const std::string& where) {
  const char* key = r.contains("request_start_time") ? "request_start_time" : "start_time";
  const auto it = r.find(key);
  if (it == r.end() || !it->is_number())
    throw UsageError(
        fmt::format("{}: 'request_start_time' is missing or not a number (epoch seconds)", where));
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || v > 1e11)
    throw UsageError(fmt::format("{}: '{}' is {}; expected epoch seconds from 0", where, key, it->dump()));
  return v;
}

// A latency field in `scale` seconds per unit: nullopt where absent or null (GuideLLM's None).
std::optional<double> seconds_field(const nlohmann::json& r, const char* key, double scale,
                                    const std::string& where) {
  const auto it = r.find(key);
  if (it == r.end() || it->is_null()) return std::nullopt;
  const double v = it->is_number() ? it->get<double>() * scale : -1;
  if (!std::isfinite(v) || v < 0 || v > 1e7) {
    throw UsageError(fmt::format("{}: '{}' is {}; expected {}", where, key, it->dump(),
                                 scale == 1 ? "seconds from 0 to 1e7" : "milliseconds from 0 to 1e10"));
  }
  return v;
}

GuidellmRequest request_at(const nlohmann::json& r, const std::string& where) {
  if (!r.is_object()) throw UsageError(fmt::format("{}: not an object", where));
  GuidellmRequest out{start_seconds(r, where),
                      trace_token_count(r, "prompt_tokens", 1, where),
                      trace_token_count(r, "output_tokens", 0, where),
                      seconds_field(r, "time_to_first_token_ms", 1e-3, where),
                      seconds_field(r, "request_latency", 1, where),
                      where};
  // The first token's iteration is before the request's end (a nanosecond of slack for rounding).
  if (out.ttft_s && out.e2e_s && *out.e2e_s < *out.ttft_s - 1e-9) {
    throw UsageError(fmt::format(
        "{}: 'request_latency' ({:g} s) is below 'time_to_first_token_ms' ({:g} ms); expected the end after "
        "the first token",
        where, *out.e2e_s, *out.ttft_s * 1e3));
  }
  return out;
}

const nlohmann::json& list_at(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array())
    throw UsageError(fmt::format("{}: '{}' is missing or not a list", where, key));
  return *it;
}

}  // namespace

bool is_guidellm_report(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("benchmarks") && doc.at("benchmarks").is_array();
}

GuidellmRequests guidellm_requests(const nlohmann::json& doc, const std::string& origin) {
  GuidellmRequests out;
  const auto& benchmarks = list_at(doc, "benchmarks", origin);
  for (std::size_t b = 0; b < benchmarks.size(); ++b) {
    const auto at = fmt::format("{}: benchmarks[{}]", origin, b);
    const auto& bench = benchmarks[b];
    if (!bench.is_object() || !bench.contains("requests") || !bench.at("requests").is_object())
      throw UsageError(fmt::format("{}: 'requests' is missing or not an object", at));
    const auto& requests = bench.at("requests");
    for (const char* other : {"incomplete", "errored"}) {
      if (requests.contains(other) && requests.at(other).is_array())
        out.not_successful += static_cast<std::int64_t>(requests.at(other).size());
    }
    const auto& ok = list_at(requests, "successful", at + ".requests");
    for (std::size_t i = 0; i < ok.size(); ++i) {
      out.successful.push_back(request_at(ok[i], fmt::format("{}.requests.successful[{}]", at, i)));
    }
  }
  return out;
}

std::string TraceReader::read_rest() {
  std::string text = buf_.substr(buf_pos_);
  buf_.clear();
  buf_pos_ = 0;
  while (!at_end_) {
    if (text.size() > kMaxTraceDocumentBytes) {
      throw UsageError(fmt::format(
          "trace '{}': its first line is no whole JSON record, and as one JSON document it is larger "
          "than 256 MiB; expected one request per line or a report (GuideLLM, inference-perf) of at most "
          "256 MiB",
          shown_));
    }
    if (!fill()) at_end_ = true;
    text += buf_;
    buf_.clear();
  }
  return text;
}

// A report lists each benchmark's requests apart (a sweep runs its benchmarks one after another):
// all successful ones, in start order, are the traffic the server saw.
void TraceReader::read_guidellm(const nlohmann::json& doc) {
  format_ = TraceFormat::kGuidellm;
  have_pending_ = false;
  auto requests = guidellm_requests(doc, fmt::format("trace '{}'", shown_));
  failed_ = requests.not_successful;
  auto& ok = requests.successful;
  if (ok.empty()) {
    throw UsageError(
        fmt::format("trace '{}': a GuideLLM report with no successful request ({} incomplete or "
                    "errored); expected at least one",
                    shown_, failed_));
  }
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  for (std::size_t i = 0; i < ok.size(); ++i) {
    const double arrival = arrival_after_speed(ok[i].start_s - ok.front().start_s, ok[i].where);
    held_.push_back({arrival, ok[i].prompt_tokens, ok[i].output_tokens, static_cast<std::int64_t>(i) + 1});
  }
}

}  // namespace kvb
