#pragma once
// GuideLLM's report, benchmarks.json (`guidellm benchmark --output-path`): one JSON document,
// GenerativeBenchmarksReport {"benchmarks": [{"requests": {"successful": [...], "incomplete":
// [...], "errored": [...]}, ...}]}, written by json.dumps on one line. Each request is a
// GenerativeRequestStats: github.com/vllm-project/guidellm src/guidellm/schemas/request_stats.py
// (read at commit ef589a015c6d), whose serialized computed fields `request_start_time` (epoch
// seconds), `prompt_tokens` and `output_tokens` are read; releases before 0.4 named the start
// `start_time` (GenerativeTextResponseStats), which is read where `request_start_time` is absent.
// No prefix hash ids: the report holds lengths and times, not which prompts share a prefix.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvb {

// A JSON object holding a "benchmarks" list.
bool is_guidellm_report(const nlohmann::json& doc);

struct GuidellmRequest {
  double start_s = 0;  // epoch seconds
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  std::string where;  // "benchmarks[b].requests.successful[i]", for messages
};

struct GuidellmRequests {
  std::vector<GuidellmRequest> successful;
  std::int64_t not_successful = 0;  // incomplete and errored: their lengths are not all measured
};

// Every benchmark's successful requests; UsageError "<origin>: benchmarks[b].requests.successful[i]:
// '<field>' ..." for a missing or ill-typed field.
GuidellmRequests guidellm_requests(const nlohmann::json& doc, const std::string& origin);

// The report is one document, read whole: at most this many bytes.
inline constexpr std::size_t kMaxTraceDocumentBytes = 256u << 20;

}  // namespace kvb
