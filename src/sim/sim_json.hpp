#pragma once
// The kvbench/simulate/v1 result document: written by `kvbench simulate --json`, read back by
// report. Writer and reader live together so they cannot drift.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "server/resolved_server.hpp"
#include "sim/sweep.hpp"

namespace kvb {

inline constexpr const char* kSimulateSchema = "kvbench/simulate/v1";

// The document as written, typed: what a reader can rebuild byte for byte. Each point keeps its
// baseline (the same point without a tier) only as the ratios and the two figures recorded, and
// its metrics only as the fields the document has (not engine_busy_s, slo_met_requests, fleet).
struct VsNoOffload {
  double output_tokens_per_s_ratio = 0, ttft_p50_ratio = 0, ttft_p99_ratio = 0;
  double baseline_output_tokens_per_s = 0, baseline_ttft_p99_s = 0;
};
struct SimPointRecord {
  std::vector<std::pair<std::string, std::string>> params;  // sweep axis -> value
  bool offloading = false;
  double kv_offloading_gib = 0;  // 0 without a tier (written as null)
  std::int64_t gpu_blocks = 0, cpu_blocks = 0, max_model_len = 0;
  SimResult metrics;  // with each replica's share for a fleet
  VsNoOffload vs_no_offload;
};
struct SimulateDocument {
  std::string tool;  // "kvbench <version>" of the run that wrote it
  std::string scenario_name, scenario_origin, scenario_description;
  std::uint64_t seed = 1;
  std::optional<TraceInput> trace;  // path as printed
  ResolvedServer server;            // the first point's (server/server_json: its keys at the top level)
  double cpu_block_bytes = 0;
  std::variant<GpuBlocksOrigin, std::string> gpu_blocks;  // sim/sim_notes_json: a string from an older one
  // The link, the step model and the expected error the run used, as facts (output/common words
  // them); a document written before they were facts held their words, kept as written (link_model,
  // time_model; the expected error's as ExpectedError::recorded).
  std::variant<LinkProfile, std::string> link;
  std::variant<TimeModelTerms, std::string> time_model;
  ExpectedError expected_error;  // not scored: no class (`scored` empty), as the printer says
  std::vector<SimNote> notes;    // facts: printers word them (output/simulate/sim_notes_text)
  int replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  bool interrupted = false;
  std::string interrupted_during;
  std::vector<SweepAxis> sweep;
  std::vector<SimPointRecord> points;
};

// The writer; output/simulate/sim_document turns a run into its document.
nlohmann::json simulate_json(const SimulateDocument& d);
// Every number range-checked where it is read (core/json_file): UsageError naming `origin` and
// the field; nlohmann::json::exception for a document of the wrong shape.
SimulateDocument simulate_document_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
