#pragma once
// Inputs and the result record of `kvbench size`. Printers (table, JSON) read only these.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "catalog/vllm_host_memory.hpp"
#include "perf/calibration.hpp"
#include "perf/link_curve.hpp"
#include "perf/step_time_model.hpp"
#include "server/resolved_server.hpp"
#include "server/serve_settings.hpp"
#include "size/engine_notes.hpp"
#include "size/kv_layout.hpp"
#include "size/memory_budget.hpp"
#include "size/secondary_tier_plan.hpp"
#include "size/sizing_advice.hpp"
#include "size/sizing_warnings.hpp"
#include "size/tier_recommendation.hpp"

namespace kvb {

struct SizingInputs {
  ModelSpec model;
  HardwareSpec hw;
  KvSettings kv;
  double gpu_memory_utilization = 0.9;
  std::optional<std::uint64_t> kv_cache_memory_bytes;
  std::optional<double> gpu_memory_gib;  // --gpu-memory override
  std::optional<double> host_memory_gb;  // --host-memory override, per node
  std::optional<std::int64_t> max_model_len;
  // --max-num-batched-tokens and --max-num-seqs as given; absent: what `vllm serve` takes on this GPU
  // (vllm_serve_batch_defaults), resolved once into the fit's server (size_fit), nowhere else.
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<std::int64_t> max_num_seqs;
  Quantization quantization = Quantization::kNone;
  std::optional<int> concurrency;                // sessions to keep warm in the CPU tier
  std::optional<double> kv_offloading_size_gib;  // evaluate a given size too
  std::optional<double> secondary_tier_gib;      // --secondary-tier-size: a stated tier behind it
  std::string secondary_tier_dir;                // --secondary-tier-dir (empty: kTierDirPlaceholder)
  OffloadingBackend offloading_backend = OffloadingBackend::kNative;
  EngineKind engine = EngineKind::kVllm;
  VllmVersion vllm_version = kNewestModelledVllm;  // --vllm-version: how the tier takes host memory
  // The release's OffloadingConnector has no hybrid support, so vLLM turned the hybrid manager off
  // (kv.hybrid_manager false without --disable-hybrid-kv-cache-manager): catalog/offload_support.
  bool hybrid_off_by_connector = false;
  double host_dram_fraction = 0.6;  // at most this share of host DRAM for KV
  Calibration calibration;  // the time model's efficiencies: make_sizing_inputs sets the GPU's default
  std::optional<LinkProfile> link;  // --link-profile: the node's measured link, else the hardware table's
  // Without --tp: what the configuration search tried (size/configuration_search.hpp); such
  // inputs name no further alternative when they do not fit.
  std::optional<SearchTried> configuration_search;
  bool search_data_parallel = false;  // NodeOverrides::search_data_parallel
};

// The sizing rule's figures, in the order an operator reads its steps (block, session, cap, size,
// floor); output/size/size_text's rule_reasoning_lines words them, for the text and the JSON alike.
struct RuleFigures {
  int block_size = 16;
  int world_size = 1;
  bool replicated = false;          // the CPU block holds one copy per rank
  std::int64_t session_tokens = 0;  // one session of max-model-len
  double session_gib = 0;
  double host_gb = 0;  // per node
  double host_dram_fraction = 0;
  int gpus_per_node = 1;
  int gib = 0;  // the rule's size, after the cap and the floor
  bool below_floor = false;
  // Sized for the suggested shorter --max-model-len, the requested one not fitting: that length.
  std::optional<std::int64_t> requested_max_model_len;
  // Why that many sessions (output/size/tier_advice_text's sessions_reason_text).
  SessionsSource sessions_source;
};

struct OffloadPlan {
  std::int64_t cpu_block_bytes = 0;  // one offloaded block across all ranks
  double tokens_per_gib = 0;         // tokens the CPU tier holds per GiB given
  int sessions = 0;                  // sessions the recommendation keeps warm
  // The rule's figures (plan_offload always records them); none: read from a size document
  // written before they were recorded, which held only their words.
  std::optional<RuleFigures> rule;
  double wanted_gib = 0;  // before the host-DRAM cap
  double cap_gib = 0;     // host DRAM x fraction x this instance's share
  double floor_gib = 0;   // the aggregate GPU KV pool: a tier this small only mirrors it
  bool capped = false;
  // The one recommended --kv-offloading-size (recommendation.kv_offloading_size_gib) and how it
  // was reached: the rule's (plan_offload), or a simulation's (offload_plan.hpp, with_recommendation).
  TierRecommendation recommendation;
  double recommended_gib() const { return recommendation.kv_offloading_size_gib; }
  // What follows from the recommended size (apply_recommended_size keeps them in step).
  std::int64_t num_cpu_blocks = 0;
  std::int64_t cpu_tokens = 0;
  double pinned_gib_per_rank = 0;
  // What the recommended tier really takes on the host for --vllm-version (native vLLM tier only).
  std::optional<HostFootprint> host_memory;
  double lmcache_gib_per_rank = 0;  // what older vLLM passed to LMCache
  std::optional<double> given_gib;  // --kv-offloading-size as given
  std::int64_t given_num_cpu_blocks = 0;
  std::int64_t given_cpu_tokens = 0;
};

struct ReloadVsRecompute {
  std::int64_t tokens = 0;  // the request length compared (max-model-len)
  double reload_s = 0;
  double recompute_s = 0;
  double link_gbps = 0;
  double per_copy_us = 0;
  // Its curve and origin; none: read from a document written before it was recorded.
  std::optional<LinkProfile> link;
  bool link_given = false;  // --link-profile's, not the hardware table's
  double peak_tflops = 0;
  double efficiency = 0;
  std::int64_t chunk_tokens = 0;  // prefill chunk (max-num-batched-tokens)
  // The step model and its factors; none: read from a document written before they were recorded.
  std::optional<TimeModelTerms> recompute_terms;
  std::optional<std::int64_t> break_even_tokens;  // reload wins from here on
};

// A sizing is built in three stages, each once, from the one before (size/sizing_engine.hpp):
// the fit (the server, its GPU budget and KV pool, whether one request of max-model-len fits),
// the plan (the CPU tier, the reload estimate, the warnings, alternatives and notes), and the
// sizing (the plan with its commands). Printers read the last; each stage holds the one before.
struct SizingFit {
  // The server as vLLM would run it, resolved once (size_fit): the batch defaults on this GPU,
  // the weights after --quantization, the model's own max-model-len, the layout's KV dtype and
  // block size. Every later stage, printer and document reads it, none resolves it again.
  ResolvedServer server;
  KvLayout layout;
  MemoryBudget budget;
  bool weights_fit = true;
  std::int64_t num_gpu_blocks = 0;
  std::int64_t gpu_kv_tokens = 0;           // vLLM's logged "GPU KV cache size"
  std::int64_t gpu_kv_tokens_capacity = 0;  // tokens of full-attention context the pool holds
  // The one figure tables and the report print as "GPU KV tokens": the context the pool holds
  // (vLLM's log figure for a uniform model; for a hybrid one its log figure counts every group,
  // so the full-attention capacity).
  std::int64_t gpu_context_tokens() const { return layout.uniform ? gpu_kv_tokens : gpu_kv_tokens_capacity; }
  std::int64_t blocks_per_request = 0;
  double max_concurrency = 0;
  bool fits = false;
  double kv_gib_needed_per_request = 0;
  double kv_gib_available = 0;
  std::int64_t estimated_max_model_len = 0;
};

struct SizingPlan : SizingFit {
  SizingPlan() = default;
  explicit SizingPlan(SizingFit fit) : SizingFit(std::move(fit)) {}
  std::optional<OffloadPlan> offload;
  std::optional<ReloadVsRecompute> reload;
  std::vector<SizingWarning> warnings;          // facts; size/sizing_warnings words them
  std::vector<SizingAlternative> alternatives;  // worded by output/size/sizing_advice_text
  std::vector<SizingNote> notes;
  // A tier planned for the requested context, which a traffic can be simulated against.
  bool simulable() const { return fits && offload.has_value(); }
};

struct Sizing : SizingPlan {
  Sizing() = default;
  explicit Sizing(SizingPlan plan) : SizingPlan(std::move(plan)) {}
  std::string vllm_version_note;
  std::string vllm_command;
  std::string vllm_command_legacy;
  std::string rocm_docker_command;  // AMD hardware only
  // --secondary-tier-size: how vLLM holds the stated tier (tiering: in vllm_command; the Simple
  // connector's disk backend: secondary_command, the disk instead of the CPU tier).
  std::optional<SecondaryTierPlan> secondary;
  std::string secondary_command;
  EngineKind engine = EngineKind::kVllm;
  std::string engine_command;            // --engine sglang / lmcache: that server's command line
  std::vector<EngineNote> engine_notes;  // the engine's sizing facts (output/size/engine_notes_text)
  double hicache_size_gb_per_rank = 0;   // --engine sglang: --hicache-size (GB = 10^9, per rank)
  double hicache_ratio = 0;              // the same as --hicache-ratio (host pool / device pool)
  double kvbm_cpu_cache_gb = 0;          // --engine dynamo: DYN_KVBM_CPU_CACHE_GB (GB = 10^9, per instance)
  std::int64_t kvbm_host_blocks = 0;     // the blocks KVBM makes of it
  int kvbm_init_timeout_s = 0;  // DYN_KVBM_LEADER_WORKER_INIT_TIMEOUT_SECS when pinning needs more than 120 s
};

}  // namespace kvb
