#pragma once
// GuideLLM's report, benchmarks.json (`guidellm benchmark --output-path`): one JSON document,
// GenerativeBenchmarksReport {"benchmarks": [{"requests": {"successful": [...], "incomplete":
// [...], "errored": [...]}, ...}]}, written by json.dumps on one line. Each request is a
// GenerativeRequestStats: github.com/vllm-project/guidellm src/guidellm/schemas/request_stats.py
// (read at commit ef589a015c6d), whose serialized computed fields `request_start_time` (epoch
// seconds), `prompt_tokens` and `output_tokens` are read; releases before 0.4 named the start
// `start_time` (GenerativeTextResponseStats), which is read where `request_start_time` is absent.
// The latencies calibrate fits to are computed fields of both: `time_to_first_token_ms` (ms, the
// first token's iteration minus the request's start) and `request_latency` (s, its end minus its
// start); either is null where a timing was not recorded (request_stats.py above; before 0.4,
// src/guidellm/benchmark/benchmark.py at tag v0.3.0).
// No prefix hash ids: the report holds lengths and times, not which prompts share a prefix.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kvb {

// A JSON object holding a "benchmarks" list.
bool is_guidellm_report(const nlohmann::json& doc);

struct GuidellmRequest {
  double start_s = 0;  // epoch seconds
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  std::optional<double> ttft_s, e2e_s;  // seconds; nullopt where the report holds none (absent or null)
  std::string where;                    // "benchmarks[b].requests.successful[i]", for messages
};

struct GuidellmRequests {
  std::vector<GuidellmRequest> successful;
  std::int64_t not_successful = 0;  // incomplete and errored: their lengths are not all measured
};

// Every benchmark's successful requests; UsageError "<origin>: benchmarks[b].requests.successful[i]:
// '<field>' ..." for a missing or ill-typed field (a latency may be null; one given must be a time from
// 0 to 1e7 s, the end not before the first token).
GuidellmRequests guidellm_requests(const nlohmann::json& doc, const std::string& origin);

// The report is one document, read whole: at most this many bytes.
inline constexpr std::size_t kMaxTraceDocumentBytes = 256u << 20;

}  // namespace kvb
