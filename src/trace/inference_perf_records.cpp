#include "trace/inference_perf_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "trace/guidellm_report.hpp"
#include "trace/llmd_report.hpp"
#include "trace/token_count.hpp"
#include "trace/trace_reader.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {
namespace {

// The value at a dotted path of objects ("info.request_metrics.text"), or nullptr where a step
// is absent, null or not an object.
const nlohmann::json* at_path(const nlohmann::json& j, std::initializer_list<const char*> keys) {
  const nlohmann::json* at = &j;
  for (const char* key : keys) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

// perf_counter seconds: any finite number (its origin is arbitrary), bounded so that differences
// stay exact to well under a microsecond.
double clock_seconds(const nlohmann::json& v, const char* field, const std::string& where) {
  if (!v.is_number())
    throw UsageError(fmt::format("{}: '{}' is missing or not a number (seconds)", where, field));
  const double s = v.get<double>();
  if (!std::isfinite(s) || std::fabs(s) > 1e11)
    throw UsageError(fmt::format("{}: '{}' is {}; expected seconds within 1e11", where, field, v.dump()));
  return s;
}

// The first output token's time after the start, where inference-perf's summary has one: more
// than one token time recorded (a streamed response).
std::optional<double> ttft(const nlohmann::json* times, double start, const std::string& where) {
  if (times == nullptr) return std::nullopt;
  if (!times->is_array()) throw UsageError(fmt::format("{}: 'output_token_times' is not a list", where));
  if (times->size() < 2) return std::nullopt;
  const double first = clock_seconds(times->at(0), "output_token_times[0]", where);
  if (first < start) {
    throw UsageError(
        fmt::format("{}: 'output_token_times[0]' is {:.6f} s before 'start_time'; expected "
                    "the first token after the request started",
                    where, start - first));
  }
  return first - start;
}

InferencePerfRequest successful_request(const nlohmann::json& r, const std::string& where) {
  InferencePerfRequest out;
  out.start_s =
      clock_seconds(r.contains("start_time") ? r.at("start_time") : nlohmann::json(), "start_time", where);
  const double end =
      clock_seconds(r.contains("end_time") ? r.at("end_time") : nlohmann::json(), "end_time", where);
  if (end < out.start_s)
    throw UsageError(
        fmt::format("{}: 'end_time' is before 'start_time'; expected a request that ends after "
                    "it starts",
                    where));
  out.e2e_s = end - out.start_s;
  const auto* info = at_path(r, {"info"});
  if (info == nullptr || !info->is_object())
    throw UsageError(fmt::format("{}: 'info' is missing or not an object", where));
  // v0.6 on: request_metrics / response_metrics; before: the counts on info itself.
  if (info->contains("request_metrics")) {
    out.prompt_tokens = trace_token_count(at_path(*info, {"request_metrics", "text", "input_tokens"}),
                                          "info.request_metrics.text.input_tokens", 1, where);
  } else {
    out.prompt_tokens = trace_token_count(at_path(*info, {"input_tokens"}), "info.input_tokens", 1, where);
  }
  if (info->contains("response_metrics") || info->contains("request_metrics")) {
    out.output_tokens = trace_token_count(at_path(*info, {"response_metrics", "output_tokens"}),
                                          "info.response_metrics.output_tokens", 0, where);
    out.ttft_s = ttft(at_path(*info, {"response_metrics", "output_token_times"}), out.start_s, where);
  } else {
    out.output_tokens = trace_token_count(at_path(*info, {"output_tokens"}), "info.output_tokens", 0, where);
    out.ttft_s = ttft(at_path(*info, {"output_token_times"}), out.start_s, where);
  }
  return out;
}

}  // namespace

bool is_inference_perf_report(const nlohmann::json& doc) {
  if (!doc.is_array() || doc.empty() || !doc.front().is_object()) return false;
  return doc.front().contains("start_time");
}

InferencePerfRequests inference_perf_requests(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_array()) {
    throw UsageError(fmt::format(
        "{}: not a JSON list; expected inference-perf's per_request_lifecycle_metrics.json", origin));
  }
  InferencePerfRequests out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto where = fmt::format("{}: [{}]", origin, i);
    const auto& r = doc[i];
    if (!r.is_object()) throw UsageError(fmt::format("{}: not an object", where));
    if (r.contains("error") && !r.at("error").is_null()) {
      ++out.failed;
      continue;
    }
    out.successful.push_back(successful_request(r, where));
    out.successful.back().index = i;
  }
  // Written in the order results were collected: put in start order.
  std::stable_sort(out.successful.begin(), out.successful.end(),
                   [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  return out;
}

InferencePerfRequests read_inference_perf_report(const std::string& path) {
  const auto origin = fmt::format("inference-perf report '{}'", printable_path(path));
  const auto text = read_text_file(path, "inference-perf report", kMaxTraceDocumentBytes);
  nlohmann::json doc;
  try {
    doc = parse_json_without_repeated_keys(text, origin);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not valid JSON ({})", origin, json_error_text(e)));
  }
  auto out = inference_perf_requests(doc, origin);
  if (out.successful.empty()) {
    throw UsageError(
        fmt::format("{}: no successful request ({} failed); expected at least one", origin, out.failed));
  }
  return out;
}

// A file that is one JSON document (a list, or a first line past 16 MiB): which report it is.
void TraceReader::read_document(const std::string& text) {
  const auto origin = fmt::format("trace '{}'", shown_);
  nlohmann::json doc;
  try {
    doc = parse_json_without_repeated_keys(text, origin);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not valid JSON ({}); expected one request per line or one report",
                                 origin, json_error_text(e)));
  }
  if (is_guidellm_report(doc)) return read_guidellm(doc);
  if (is_llmd_report(doc)) throw llmd_report_is_no_trace(shown_, llmd_version(doc));
  if (is_inference_perf_report(doc)) return read_inference_perf(doc);
  if (is_vllm_bench_result(doc)) return read_vllm_bench(doc);
  if (doc.is_array() && doc.empty())
    throw UsageError(
        fmt::format("{}: an empty JSON list: no records; expected one request per item", origin));
  throw UsageError(
      fmt::format("{}: a JSON document that is neither a GuideLLM report (a 'benchmarks' list), an "
                  "inference-perf per-request report (a list of objects with 'start_time') nor a vllm bench "
                  "serve result ('input_lens', 'output_lens'); expected one of them, or one request per line",
                  origin));
}

// All successful requests, in start order, are the traffic the server saw.
void TraceReader::read_inference_perf(const nlohmann::json& doc) {
  format_ = TraceFormat::kInferencePerf;
  have_pending_ = false;
  auto requests = inference_perf_requests(doc, fmt::format("trace '{}'", shown_));
  failed_ = requests.failed;
  const auto& ok = requests.successful;
  if (ok.empty()) {
    throw UsageError(
        fmt::format("trace '{}': an inference-perf report with no successful request ({} failed); "
                    "expected at least one",
                    shown_, failed_));
  }
  for (const auto& r : ok) {
    const auto where = fmt::format("{}: [{}]", shown_, r.index);
    const double arrival = arrival_after_speed(r.start_s - ok.front().start_s, where);
    held_.push_back({arrival, r.prompt_tokens, r.output_tokens, static_cast<std::int64_t>(r.index) + 1});
  }
}

}  // namespace kvb
