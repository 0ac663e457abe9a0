#pragma once
// kvbench/trace/v1: the trace's statistics and its miss-ratio curve, with the sizes in GiB for the
// model's KV bytes per token (all ranks) that the caller states.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_analysis.hpp"

namespace kvb {

inline constexpr const char* kTraceSchema = "kvbench/trace/v1";

// What a cache block of the trace costs in KV memory: model, hardware, TP and bytes per token
// across all ranks (from size/).
struct TraceKvCost {
  std::string model, hardware;
  int tensor_parallel_size = 1;
  double kv_bytes_per_token = 0;
};

double block_gib(const TraceAnalysis& a, const TraceKvCost& cost);
nlohmann::json trace_json(const TraceAnalysis& a, const TraceKvCost& cost);

// What the report draws of a kvbench/trace/v1 document; every figure range-checked where read.
struct TraceView {
  std::string trace, format, model, hardware;
  std::int64_t requests = 0;
  double duration_s = 0, unbounded_prefix_hit_rate = 0, unbounded_cache_gib = 0;
  std::vector<std::pair<double, double>> curve;  // (size GiB, prefix hit rate)
};
TraceView trace_view_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
