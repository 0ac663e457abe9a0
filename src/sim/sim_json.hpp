#pragma once
// The kvbench/simulate/v1 result document: written by `kvbench simulate --json`, read back by
// report. Writer and reader live together so they cannot drift.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep.hpp"

namespace kvb {

inline constexpr const char* kSimulateSchema = "kvbench/simulate/v1";

nlohmann::json simulate_json(const SweepRun& run);

// What a reader of the document needs (the report's charts and tables).
struct SimPointView {
  std::vector<std::pair<std::string, std::string>> params;  // sweep axis -> value
  bool offloading = false;
  double tier_gib = 0;
  std::int64_t gpu_blocks = 0;     // the server's GPU KV pool (per replica)
  std::int64_t max_model_len = 0;  // and its context length
  double output_tokens_per_s = 0, baseline_output_tokens_per_s = 0;
  double ttft_p50_s = 0, ttft_p99_s = 0, baseline_ttft_p99_s = 0;
  double gpu_hit_rate = 0, cpu_hit_rate = 0;
  std::int64_t preemptions = 0;
  double h2d_bytes = 0, d2h_bytes = 0;
  // A fleet: each replica's GPU and CPU-tier hit rates, in replica order (empty for one engine).
  std::vector<double> replica_gpu_hit_rate, replica_cpu_hit_rate;
};

struct SimView {
  std::string origin, scenario, description, model, hardware, link_model, time_model;
  std::string expected_error;  // against real vLLM servers; empty: not scored (or a file before it)
  int tp = 1;
  int replicas = 1;    // the fleet (files before it: one engine)
  std::string router;  // empty for one engine
  std::vector<std::string> axes;
  std::vector<SimPointView> points;
};

// Throws nlohmann::json::exception for a malformed document, UsageError naming `origin` for one
// with no points.
SimView sim_view_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
