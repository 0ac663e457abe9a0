#pragma once
// kvbench/trace/v1: the trace's statistics and its miss-ratio curve, with the sizes in GiB for the
// model's KV bytes per token (all ranks) that the caller states.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "server/resolved_server.hpp"
#include "trace/trace_analysis.hpp"

namespace kvb {

inline constexpr const char* kTraceSchema = "kvbench/trace/v1";

// What a cache block of the trace costs in KV memory: the server sized for it (written through
// server/server_json, its keys at the document's top level) and its KV bytes per token across all
// ranks (from size/).
struct TraceKvCost {
  ResolvedServer server;
  double kv_bytes_per_token = 0;
};

double block_gib(const TraceAnalysis& a, const TraceKvCost& cost);
nlohmann::json trace_json(const TraceAnalysis& a, const TraceKvCost& cost);

// A kvbench/trace/v1 document read back whole: the analysis and the KV cost it was written with
// (trace_json(read.analysis, read.cost) gives the same bytes). Every figure range-checked where
// read; UsageError naming `origin`.
struct TraceDocument {
  TraceAnalysis analysis;
  TraceKvCost cost;
};
TraceDocument trace_document_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
