#pragma once
// inference-perf's per-request report, per_request_lifecycle_metrics.json
// (github.com/kubernetes-sigs/inference-perf, read at commit 7de5ef2ed6f7 and at tags v0.4.0,
// v0.6.1): one JSON list, written by json.dumps with indent=2 (local storage) or on one line (GCS,
// S3: inference_perf/client/filestorage/), of one object per request, built in
// inference_perf/reportgen/base.py (generate_reports, "per_request_lifecycle_metrics"):
// {"start_time", "end_time", "request", "response", "info", "error"}. start_time and end_time
// are the client's time.perf_counter() seconds (inference_perf/client/modelserver/
// openai_client.py): an arbitrary origin, so only their differences mean anything. "info" is
// InferenceInfo (inference_perf/apis/base.py):
//  * from v0.6 (multimodal): info.request_metrics.text.input_tokens (payloads/text/metrics.py),
//    info.response_metrics.output_tokens, and for a streamed response
//    info.response_metrics.output_token_times (StreamedResponseMetrics);
//  * before v0.6: info.input_tokens, info.output_tokens, info.output_token_times.
// "error" is ErrorResponseInfo {"error_type", "error_msg"} or null: a failed request, counted
// and not replayed. TTFT is output_token_times[0] - start_time where more than one token time was
// recorded, and end-to-end latency end_time - start_time, as inference-perf's own summary
// (summarize_requests) computes them. No prefix hash ids: the report holds lengths and times.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kvb {

// A JSON list whose first element is an object holding "start_time" (its other fields are then
// required by the reader, which names any that is missing).
bool is_inference_perf_report(const nlohmann::json& doc);

// One successful request: what the trace replays and what calibrate may fit.
struct InferencePerfRequest {
  double start_s = 0;  // the client's perf_counter seconds; differences only
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  std::optional<double> ttft_s;  // a streamed response with more than one token time
  std::optional<double> e2e_s;   // end_time - start_time
  std::size_t index = 0;         // its place in the report's list, for messages
};

struct InferencePerfRequests {
  std::vector<InferencePerfRequest> successful;  // in start order (the list is in end order)
  std::int64_t failed = 0;                       // a non-null "error": lengths not all measured
};

// Every request of the report; UsageError "<origin>: [i]: '<field>' ..." for a missing or
// ill-typed field of a successful request, or when the document is no such list.
InferencePerfRequests inference_perf_requests(const nlohmann::json& doc, const std::string& origin);

// The file read whole (at most kMaxTraceDocumentBytes) and parsed as above: calibrate's reader.
// UsageError "inference-perf report '<path>': ..." when it is unreadable or holds no successful
// request.
InferencePerfRequests read_inference_perf_report(const std::string& path);

}  // namespace kvb
