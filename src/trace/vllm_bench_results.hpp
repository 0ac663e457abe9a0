#pragma once
// The JSON `vllm bench serve --save-result --save-detailed` writes (vllm/benchmarks/serve.py): the
// per-request lists input_lens, output_lens, ttfts (s) and itls (s, one list per request), and
// start_times where the file has them; where it has none, arrivals are drawn as a Poisson process at
// its request_rate (seed 1), and the run says so. One reader for `trace`, `simulate --trace` and
// `size --trace` (arrivals and lengths) and for `calibrate --from-vllm` (the latencies too). A length
// of 0 is vLLM's record of a failed request: counted, not read further. Every bad field is a
// UsageError naming the file, the field and the index.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvb {

// A run's arrivals span at most this (116 days): a rate that spreads one further is no measured run.
inline constexpr double kMaxRunSpanSeconds = 1e7;

// A JSON object holding the "input_lens" and "output_lens" lists.
bool is_vllm_bench_result(const nlohmann::json& doc);

struct VllmBenchRequest {
  double start_s = 0;  // after the earliest start in the file
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  double ttft_s = 0, e2e_s = 0;  // e2e: the TTFT plus every inter-token gap
  std::size_t index = 0;         // its place in the lists
};

struct VllmBenchRun {
  std::vector<VllmBenchRequest> requests;  // the completed ones, in the file's order
  std::int64_t failed = 0;                 // a length of 0
  double poisson_rate = 0;                 // > 0: no start_times; arrivals drawn at this rate
};

// `path` as messages name the file. At most `max_tokens` tokens a request (what a replayed request
// may hold).
VllmBenchRun vllm_bench_run(const nlohmann::json& doc, const std::string& path, std::int64_t max_tokens);

// n arrivals of a Poisson process at `rate` per second from 0, seeded (seed 1); UsageError "<where>
// is <rate>/s; expected ..." for a rate that cannot place them within 1e7 s or above 1e6/s.
std::vector<double> poisson_arrivals_at(double rate, std::size_t n, const std::string& where);

}  // namespace kvb
