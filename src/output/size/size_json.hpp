#pragma once
// The kvbench/size/v1 result document, typed: the record of one sizing and the reader that
// rebuilds it (report reads through it). Its writer sits beside it (size_json_writer), here in
// output/ because the fields JSON users read as words are worded by the text printer's functions;
// the facts (warnings, notes, verdicts, steps) are written and read by size/'s *_json files. A
// round-trip test (tests/unit/output/test_size_json.cpp) keeps writer and reader in step.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/resolved_server.hpp"
#include "size/sizing.hpp"

namespace kvb {

inline constexpr const char* kSizeSchema = "kvbench/size/v1";
// reload_vs_recompute.model: how its figures were reached.
inline constexpr const char* kReloadModelNote =
    "computed: the simulator's roofline step model over the hardware table (perf/step_time_model), not "
    "measured";

// One result as the document records it, typed: what a reader can rebuild byte for byte. The KV
// layout, the memory budget and the CPU tier keep only the figures written; the warnings, the
// alternatives, the notes, the engine notes and the KV derivation are the typed facts
// (size/sizing_warnings_json, sizing_advice_json, sizing_notes_json, engine_notes_json,
// kv_derivation_json), worded by output/size's printers alone.
struct SizeRecord {
  // The server sized, written and read by server/server_json's one table (its keys beside these).
  ResolvedServer server;
  int kv_cache_groups = 1;
  std::int64_t kv_bytes_per_token = 0, kv_bytes_per_token_all_layers = 0, page_bytes = 0;
  bool kv_replicated = false, weights_fit = true, fits = false;
  MemoryBudget budget;  // total, utilization, the four uses, from_kv_cache_memory, model_note
  double kv_gib_available = 0, max_concurrency = 0, kv_gib_needed_per_request = 0;
  std::int64_t num_gpu_blocks = 0, gpu_kv_tokens = 0, gpu_kv_tokens_capacity = 0, gpu_context_tokens = 0;
  std::int64_t estimated_max_model_len = 0;
  std::optional<OffloadPlan> offload;  // with its recommendation, blocks and host footprint
  std::optional<ReloadVsRecompute> reload;
  EngineKind engine = EngineKind::kVllm;
  std::string engine_command;
  std::vector<EngineNote> engine_notes;  // an older document's worded ones as WordedEngineNote
  double kvbm_cpu_cache_gb = 0, hicache_size_gb_per_rank = 0, hicache_ratio = 0;
  std::int64_t kvbm_host_blocks = 0;
  int kvbm_init_timeout_s = 0;
  std::string vllm_command, vllm_command_legacy, rocm_docker_command, vllm_version_note;
  std::vector<KvDerivationStep> derivation;     // an older document's worded ones as WordedDerivationStep
  std::vector<SizingWarning> warnings;          // an older document's worded ones as WordedWarning
  std::vector<SizingAlternative> alternatives;  // an older document's worded ones as WordedAlternative
  std::vector<SizingNote> notes;                // an older document's worded ones as CatalogNote
  // --secondary-tier-size: the plan and the Simple disk backend's command (the plan's words in the
  // document are worded from the plan by the writer, output/size/secondary_plan_text).
  std::optional<SecondaryTierPlan> secondary;
  std::string secondary_command;
};
struct SizeDocument {
  std::string tool;          // "kvbench <version>" of the run that wrote it
  bool interrupted = false;  // a signal stopped a tier-size sweep
  std::vector<SizeRecord> results;
};

// Every figure range-checked where it is read (UsageError naming `origin`); fields that earlier v1
// documents lack read with their defaults. Throws nlohmann::json::exception for a malformed one.
SizeDocument size_document_from_json(const nlohmann::json& doc, const std::string& origin);

// A result's recommendation, every field; the reader range-checks each figure (UsageError naming
// `where`). Public so that a round trip (write, read, write) can be tested byte for byte.
TierRecommendation recommendation_from_json(const nlohmann::json& k, const std::string& where);

}  // namespace kvb
