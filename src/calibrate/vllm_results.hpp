#pragma once
// What a real vLLM server answered, per request, as `kvbench calibrate --from-vllm` reads it:
//  * the JSON `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py): per-request
//    `input_lens`, `output_lens`, `ttfts` (s) and `itls` (s, per request), arrivals from
//    `start_times` where the file has them, else a Poisson process at its `request_rate` (said so);
//  * a CSV with the residency-vllm columns: send_us, server_input_tokens, output_tokens, ttft_us,
//    e2e_us (and optionally status: rows other than "ok" are left out).
// Every bad file is a UsageError naming the file and the field.
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

struct ObservedRequest {
  double arrival_s = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  double ttft_s = 0;
  double e2e_s = 0;
};

// Where a run's arrival times came from: a field of the file (`field`), else drawn as a Poisson
// process at the file's request_rate (`poisson_rate`, seed 1). Worded by output/calibrate_documents.
struct ArrivalsSource {
  std::string field;
  double poisson_rate = 0;
};

struct VllmRun {
  std::string path;
  std::vector<ObservedRequest> requests;  // in arrival order
  ArrivalsSource arrivals;                // where the arrival times came from
};

VllmRun read_vllm_run(const std::string& path);

}  // namespace kvb
