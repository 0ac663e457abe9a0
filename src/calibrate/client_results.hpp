#pragma once
// Benchmark clients' per-request results as the runs `calibrate --from-vllm` fits to. Each format is
// parsed by its one reader in trace/ (the same that `trace`, `simulate --trace` and `size --trace`
// use) and converted here into ObservedRequests: arrivals are the client's start times relative to
// the first kept request; a request the client recorded as failed (or with no output token), or
// without a TTFT or an end-to-end latency, is left out of the fit and counted (RunOrigin::left_out).
//  * AIPerf's profile_export.jsonl (trace/aiperf_records): metadata.request_start_ns, the token
//    counts, metrics.time_to_first_token and metrics.request_latency in the unit each names;
//  * GuideLLM's benchmarks.json (trace/guidellm_report): every benchmark's successful requests'
//    request_start_time, token counts, time_to_first_token_ms (ms) and request_latency (s);
//  * inference-perf's per_request_lifecycle_metrics.json (trace/inference_perf_records):
//    start_time (perf_counter seconds), the token counts, TTFT from the first output-token time of
//    a streamed response, end_time - start_time.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/vllm_results.hpp"

namespace kvb {

// A JSON results file as a format's detector sees it: `head` is the whole file as one JSON
// document where it is one, else (`lines`: JSON lines) its first line's value, discarded where that
// is no JSON either.
struct ClientFile {
  const std::string& path;
  const std::string& text;
  const nlohmann::json& head;
  bool lines = false;
};

// One benchmark client's format: its name, a detector by content and its reader. To read one more
// client: its reader in trace/, a detector and a conversion here, one entry in client_formats().
struct ClientFormat {
  const char* name;  // as the refusal of an unknown file lists it
  bool (*detect)(const ClientFile& file);
  VllmRun (*read)(const ClientFile& file);
};

// In the order they are tried; the first whose detector accepts the file reads it. A JSON file none
// accepts is read as vllm bench serve's result (calibrate/vllm_results).
const std::vector<ClientFormat>& client_formats();

// "vllm bench serve --save-result --save-detailed JSON, AIPerf's profile_export.jsonl, ... or a
// residency-vllm CSV": what --from-vllm reads, for the refusal of a file that is none of them.
std::string accepted_results_text();

}  // namespace kvb
