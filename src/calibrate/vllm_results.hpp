#pragma once
// What a real vLLM server answered, per request, as `kvbench calibrate --from-vllm` reads it, the
// format detected by the file's content:
//  * the JSON `vllm bench serve --save-result --save-detailed` writes (vllm/benchmarks/serve.py):
//    per-request `input_lens`, `output_lens`, `ttfts` (s) and `itls` (s, per request), arrivals from
//    `start_times` where the file has them, else a Poisson process at its `request_rate` (said so);
//  * a CSV with the residency-vllm columns: send_us, server_input_tokens, output_tokens, ttft_us,
//    e2e_us (and optionally status: rows other than "ok" are left out);
//  * the benchmark clients' own results (calibrate/client_results: AIPerf's profile_export.jsonl,
//    GuideLLM's benchmarks.json).
// A request recorded as failed, or without a TTFT or an end-to-end latency, is left out of the fit
// and counted (RunOrigin::left_out). Every bad file is a UsageError naming the file and the field.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_reader.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {

struct ObservedRequest {
  double arrival_s = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  double ttft_s = 0;
  double e2e_s = 0;
};

// Where a run's arrival times came from: a field of the file (`field`), else drawn as a Poisson
// process at the file's request_rate (`poisson_rate`, seed 1). Worded by
// output/calibrate/calibrate_documents.
struct ArrivalsSource {
  std::string field;
  double poisson_rate = 0;
};

// Requests of a file the fit leaves out (neither replayed nor scored), counted.
struct LeftOut {
  std::int64_t failed = 0;           // the client recorded a failure, or no output token
  std::int64_t without_latency = 0;  // succeeded, but without a TTFT or an end-to-end latency
};

// Where a run came from: the client whose format was read ("vllm bench serve", "AIPerf", ...), its
// arrivals and what it left out. Worded by output/calibrate/calibrate_output and
// output/calibrate/calibrate_documents.
struct RunOrigin {
  std::string client;
  ArrivalsSource arrivals;
  LeftOut left_out;
};

struct VllmRun {
  std::string path;
  std::vector<ObservedRequest> requests;  // in arrival order
  RunOrigin origin;
};

VllmRun read_vllm_run(const std::string& path);

// The replay streams a run as a trace of the default block size: no request may hold more tokens
// than a trace request may (trace/trace_reader); arrivals span at most kMaxRunSpanSeconds
// (trace/vllm_bench_results).
inline constexpr std::int64_t kMaxRunTokens = kMaxGeneratedBlocks * TraceOptions{}.block_tokens;

}  // namespace kvb
