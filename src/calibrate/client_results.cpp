#include "calibrate/client_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "calibrate/llmd_aggregate_run.hpp"
#include "core/errors.hpp"
#include "core/strings.hpp"
#include "trace/aiperf_records.hpp"
#include "trace/guidellm_report.hpp"
#include "trace/inference_perf_records.hpp"
#include "trace/llmd_report.hpp"

namespace kvb {
namespace {

// One request as its client recorded it, before the conversion.
struct ClientRequest {
  double start_s = 0;  // the client's clock
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  std::optional<double> ttft_s, e2e_s;
  std::string where;  // "<file>:<line>" or "<file>: <field path>", for messages
};

std::int64_t replayable(std::int64_t tokens, const char* what, const std::string& where) {
  if (tokens > kMaxRunTokens) {
    throw UsageError(fmt::format("{}: {} {} tokens; expected at most {} (what a replayed request may hold)",
                                 where, tokens, what, kMaxRunTokens));
  }
  return tokens;
}

// The client's requests as a run: arrivals relative to the first kept request's start; a request
// without an output token, a TTFT or an end-to-end latency is left out and counted.
VllmRun client_run(const ClientFile& file, const char* client, const char* start_field,
                   const std::vector<ClientRequest>& requests, std::int64_t failed) {
  VllmRun run{file.path, {}, {client, {.field = start_field, .poisson_rate = 0}, {.failed = failed}}};
  const auto kept = [](const ClientRequest& r) { return r.output_tokens > 0 && r.ttft_s && r.e2e_s; };
  double first = std::numeric_limits<double>::infinity();
  for (const auto& r : requests) {
    if (kept(r)) first = std::min(first, r.start_s);
  }
  for (const auto& r : requests) {
    if (r.output_tokens < 1) {
      ++run.origin.left_out.failed;
      continue;
    }
    if (!kept(r)) {
      ++run.origin.left_out.without_latency;
      continue;
    }
    const double arrival = r.start_s - first;
    if (arrival > kMaxRunSpanSeconds) {
      throw UsageError(
          fmt::format("{}: '{}' is {:g} s after the first request's; expected a run within 1e7 s", r.where,
                      start_field, arrival));
    }
    // The readers allow the end a nanosecond before the first token (rounding): never below it here.
    run.requests.push_back({arrival, replayable(r.prompt_tokens, "prompt", r.where),
                            replayable(r.output_tokens, "output", r.where), *r.ttft_s,
                            std::max(*r.e2e_s, *r.ttft_s)});
  }
  return run;
}

bool is_aiperf(const ClientFile& file) { return is_aiperf_record(file.head); }

// One record per line, in the order AIPerf processed them (the run sorts them by arrival).
VllmRun read_aiperf(const ClientFile& file) {
  std::vector<ClientRequest> requests;
  std::int64_t failed = 0, line_number = 0;
  for (std::size_t pos = 0; pos < file.text.size();) {
    auto end = file.text.find('\n', pos);
    if (end == std::string::npos) end = file.text.size();
    const auto line = trim_copy(file.text.substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const auto where = fmt::format("{}:{}", file.path, line_number);
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) throw UsageError(where + ": not valid JSON; expected one AIPerf record per line");
    const auto r = aiperf_record(j, where);
    if (!r) {
      ++failed;
      continue;
    }
    if (static_cast<std::int64_t>(requests.size()) >= kMaxAiperfRecords)
      throw UsageError(where + ": more than 10,000,000 AIPerf records; expected at most that many");
    requests.push_back({static_cast<double>(r->start_ns) * 1e-9, r->prompt_tokens, r->output_tokens,
                        r->ttft_s, r->e2e_s, where});
  }
  return client_run(file, "AIPerf", "metadata.request_start_ns", requests, failed);
}

bool is_guidellm(const ClientFile& file) { return !file.lines && is_guidellm_report(file.head); }

// Every benchmark's successful requests (a sweep's benchmarks ran one after another: one run, as
// the server saw it); the incomplete and errored ones are counted as failed.
VllmRun read_guidellm(const ClientFile& file) {
  const auto report = guidellm_requests(file.head, file.path);
  std::vector<ClientRequest> requests;
  requests.reserve(report.successful.size());
  for (const auto& r : report.successful)
    requests.push_back({r.start_s, r.prompt_tokens, r.output_tokens, r.ttft_s, r.e2e_s, r.where});
  return client_run(file, "GuideLLM", "request_start_time", requests, report.not_successful);
}

bool is_inference_perf(const ClientFile& file) { return !file.lines && is_inference_perf_report(file.head); }

// Its successful requests; a streamed response gives a TTFT, a unary one none (left out and counted).
VllmRun read_inference_perf(const ClientFile& file) {
  const auto report = inference_perf_requests(file.head, file.path);
  std::vector<ClientRequest> requests;
  requests.reserve(report.successful.size());
  for (const auto& r : report.successful) {
    requests.push_back({r.start_s, r.prompt_tokens, r.output_tokens, r.ttft_s, r.e2e_s,
                        fmt::format("{}: [{}]", file.path, r.index)});
  }
  return client_run(file, "inference-perf", "start_time", requests, report.failed);
}

bool is_llmd(const ClientFile& file) { return !file.lines && is_llmd_report(file.head); }

VllmRun read_llmd(const ClientFile& file) { return llmd_aggregate_run(file.path, file.text); }

}  // namespace

const std::vector<ClientFormat>& client_formats() {
  static const std::vector<ClientFormat> formats = {
      {"AIPerf's profile_export.jsonl", is_aiperf, read_aiperf},
      {"GuideLLM's benchmarks.json", is_guidellm, read_guidellm},
      {"inference-perf's per_request_lifecycle_metrics.json", is_inference_perf, read_inference_perf},
      {"an llm-d-benchmark report (YAML or JSON: its aggregates)", is_llmd, read_llmd},
  };
  return formats;
}

std::string accepted_results_text() {
  std::string out = "vllm bench serve --save-result --save-detailed JSON";
  for (const auto& format : client_formats()) out += fmt::format(", {}", format.name);
  return out + " or a residency-vllm CSV (send_us, server_input_tokens, output_tokens, ttft_us, e2e_us)";
}

}  // namespace kvb
