#include "size/sizing_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "catalog/offload_support.hpp"
#include "catalog/vllm_releases.hpp"
#include "catalog/weight_format.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "size/configuration_search.hpp"
#include "size/offload_plan.hpp"
#include "size/reload_vs_recompute.hpp"
#include "size/vllm_command.hpp"

namespace kvb {
namespace {

std::string effective_weight_dtype(const ModelSpec& m, Quantization quantization) {
  if (quantization == Quantization::kNone) return m.weight_dtype;
  // Only 16- and 32-bit checkpoints are quantized at load: a quantized one keeps its own format.
  return weight_format(m.weight_dtype).compute == WeightCompute::k16Bit ? std::string("fp8") : m.weight_dtype;
}

// Largest L whose KV fits `available` bytes (vLLM's estimated maximum model length).
std::int64_t max_len_that_fits(const KvLayout& l, double available, std::int64_t mnbt, std::int64_t upper) {
  if (available <= 0 || static_cast<double>(request_bytes(l, 1, mnbt)) > available) return 0;
  std::int64_t lo = 1;
  std::int64_t hi = upper;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (static_cast<double>(request_bytes(l, mid, mnbt)) <= available)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// What the model's shape means on this server: over-long context, replicated KV, hybrid layers.
// (Alternatives and notes are emplaced in place: GCC 12 takes a moved temporary variant holding a
// vector for maybe-uninitialized. Each is passed whole, T{...}: clang 14, the fuzz build's, has no
// parenthesized aggregate initialization.)
void model_warnings(SizingPlan& s, const SizingInputs& in) {
  const auto& m = in.model;
  if (s.server.max_model_len > m.max_position_embeddings) {
    s.warnings.push_back(
        ContextBeyondTrained{s.server.max_model_len, m.name, m.max_position_embeddings, m.context_extension});
  }
  if (s.layout.replicated) {
    s.warnings.push_back(ReplicatedKv{s.layout.replication, s.server.tensor_parallel_size});
    if (m.attention == AttentionKind::kMla) {
      s.alternatives.emplace_back(std::in_place_type<DataParallelAttention>,
                                  DataParallelAttention{s.server.tensor_parallel_size});
    } else {
      s.alternatives.emplace_back(std::in_place_type<TpAtMostKvHeads>, TpAtMostKvHeads{m.num_kv_heads});
    }
  }
  if (m.sliding_layers > 0 && !in.kv.hybrid_manager) {
    s.warnings.push_back(SlidingAsFull{
        m.sliding_layers, m.full_attention_layers() * s.layout.types[0].bytes_per_token_layer,
        s.layout.kv_bytes_per_token(),
        in.hybrid_off_by_connector ? std::optional<VllmVersion>(in.vllm_version) : std::nullopt});
  } else if (m.sliding_layers > 0) {
    s.notes.emplace_back(
        std::in_place_type<SlidingWindowNote>,
        SlidingWindowNote{
            m.sliding_layers, m.num_hidden_layers, m.sliding_window,
            blocks_per_request(s.layout, s.server.max_model_len, s.server.max_num_batched_tokens) -
                (s.server.max_model_len + s.layout.block_size - 1) / s.layout.block_size,
            s.layout.num_groups});
  }
}

// What the release's native CPU tier does with this model's attention (catalog/offload_support):
// a refusal, or the groups it stores and their bytes per token (plain full attention: nothing to say).
void tier_coverage(SizingPlan& s, const SizingInputs& in) {
  if (in.engine != EngineKind::kVllm || in.offloading_backend != OffloadingBackend::kNative) return;
  const auto& row = offload_support(offload_layout_kind(in.model), in.hw.vendor, in.vllm_version);
  if (row.status == OffloadStatus::kRefuses) {
    s.warnings.push_back(TierRefused{row.kind, in.vllm_version, in.hw.vendor, row.failure, row.source});
    return;
  }
  if (row.kind == OffloadLayoutKind::kMambaHybrid && in.kv.draft_layers > 0 &&
      !has_change(in.vllm_version, ReleaseChange::kDraftOffload)) {
    s.warnings.push_back(DraftZeroesTierHits{in.kv.draft_layers, in.vllm_version});
  }
  if (row.kind == OffloadLayoutKind::kFullAttention) return;
  const auto& l = s.layout;
  TierCoverageNote n{.kind = row.kind,
                     .status = row.status,
                     .version = in.vllm_version,
                     .group_layers = l.group_size,
                     .block_size = l.block_size,
                     .tier_bytes_per_token = l.block_bytes_all_layers() / l.block_size,
                     .context_bytes_per_token = l.kv_bytes_per_token(),
                     .needs = row.needs,
                     .source = row.source};
  int full_layers = 0;
  for (const auto& t : l.types) {
    auto& count = t.kind == KvGroupKind::kFull      ? n.full_groups
                  : t.kind == KvGroupKind::kSliding ? n.sliding_groups
                                                    : n.mamba_groups;
    count += t.groups;
    if (t.kind == KvGroupKind::kFull) full_layers += t.layers;
  }
  for (const auto& step : l.derivation) {
    if (const auto* ix = std::get_if<IndexerStep>(&step)) n.indexer_bytes_per_token = ix->bytes * full_layers;
  }
  s.notes.emplace_back(std::in_place_type<TierCoverageNote>, std::move(n));
}

// The CPU tier as given: LMCache's per-rank size, a tier past the host's DRAM or its cap.
void tier_warnings(SizingPlan& s, const SizingInputs& in) {
  if (in.offloading_backend == OffloadingBackend::kLmcache && s.offload) {
    s.warnings.push_back(
        LmcachePerRank{s.offload->lmcache_gib_per_rank, s.offload->recommended_gib(), s.server.world_size()});
  }
  if (s.offload && s.offload->given_gib) {
    // A tier larger than the node's host DRAM cannot be pinned; beyond the cap it starves the host.
    // Host DRAM of the nodes this instance spans (one GH200 GPU per node: TP 4 spans 4 nodes).
    const double nodes = std::max(1.0, static_cast<double>(s.server.world_size()) / in.hw.gpus_per_node);
    const double host_gib = nodes * in.host_memory_gb.value_or(in.hw.host_dram_gb) * 1e9 / kGiB;
    const double given = *s.offload->given_gib;
    if (given > host_gib) {
      s.warnings.push_back(TierBeyondHostDram{given, host_gib});
    } else if (given > s.offload->cap_gib) {
      s.warnings.push_back(TierBeyondCap{given, s.offload->cap_gib, in.host_dram_fraction});
    }
  }
}

// What would fit, or fit more: FP8 KV, a shorter context (the search's configuration: below).
void fit_alternatives(SizingPlan& s, const SizingInputs& in) {
  if (in.kv.kv_cache_dtype == "auto" && s.layout.kv_dtype_bytes == 2 && s.fits && s.weights_fit) {
    s.alternatives.emplace_back(std::in_place_type<Fp8KvHalves>,
                                Fp8KvHalves{s.layout.kv_bytes_per_token(), s.gpu_kv_tokens_capacity * 2});
  }
  if (!s.fits && s.weights_fit && s.estimated_max_model_len > 0) {
    s.alternatives.emplace_back(std::in_place_type<ShorterContextFits>,
                                ShorterContextFits{s.estimated_max_model_len});
  }
}

// Not "more GPUs would help" but the configuration that does fit, computed (it may need FP8 weights
// or pipeline stages across nodes), or the statement that none up to 8 nodes does. The search runs
// at most once per sizing, here or in make_sizing_inputs, never both: there (--tp auto) it chose
// the configuration sized, before any fit, and the inputs carry what it tried (the SearchNote: a
// configuration chosen that way names no other). Here TP, PP and the weights were the operator's
// and do not fit: the search has not run, and answers what to run instead, once the fit failed.
void search_alternative(SizingPlan& s, const SizingInputs& in) {
  if (s.fits || in.configuration_search) return;
  const auto search = search_configuration(in);
  if (search.found) {
    const auto& f = search.found->sizing;
    s.alternatives.emplace_back(std::in_place_type<ConfigurationFits>,
                                ConfigurationFits{configuration_flags(search.found->inputs), f.num_gpu_blocks,
                                                  f.gpu_kv_tokens, f.budget.weights_gib});
  } else {
    s.alternatives.emplace_back(std::in_place_type<NothingFits>, NothingFits{search.tried});
  }
}

// A --kv-cache-memory the GPU cannot hold beside the rest; ranks beyond one node.
void budget_warnings(SizingPlan& s, const SizingInputs& in) {
  if (s.budget.exceeds_gpu_gib > 0) {
    const auto& b = s.budget;
    s.warnings.push_back(
        KvCacheMemoryTooLarge{b.available_bytes, b.rest_gib(), b.total_gib, b.exceeds_gpu_gib});
  }
  if (s.server.world_size() > in.hw.gpus_per_node) {
    s.warnings.push_back(RanksBeyondNode{s.server.world_size(), in.hw.gpus_per_node, in.hw.name});
  }
}

void add_warnings(SizingPlan& s, const SizingInputs& in) {
  model_warnings(s, in);
  tier_coverage(s, in);
  tier_warnings(s, in);
  fit_alternatives(s, in);
  budget_warnings(s, in);
  for (const auto& n : in.model.notes) s.notes.emplace_back(std::in_place_type<CatalogNote>, CatalogNote{n});
}

}  // namespace

namespace {

// Who and what is sized, resolved once: the model, the GPU, the ranks, the lengths, the weights
// after --quantization, the KV layout and the dtype and block size it settles on.
void describe_server(SizingFit& s, const SizingInputs& in) {
  const auto& m = in.model;
  auto& v = s.server;
  v.model = m.name;
  v.hf_id = m.hf_id;
  v.hardware = in.hw.name;
  v.tensor_parallel_size = in.kv.tp;
  v.pipeline_parallel_size = in.kv.pp;
  v.data_parallel_size = in.kv.dp;
  v.expert_parallel = in.kv.expert_parallel;
  v.max_model_len = in.max_model_len.value_or(m.max_position_embeddings);
  const auto batch = vllm_serve_batch_defaults(in.hw);  // the one place they are taken
  v.max_num_batched_tokens = in.max_num_batched_tokens.value_or(batch.max_num_batched_tokens);
  v.max_num_seqs = in.max_num_seqs.value_or(batch.max_num_seqs);
  v.weight_dtype = effective_weight_dtype(m, in.quantization);
  v.offloading_backend = in.offloading_backend;
  s.layout = compute_kv_layout(m, in.hw, in.kv);
  v.kv_cache_dtype = s.layout.kv_dtype;
  v.block_size = s.layout.block_size;
}

// The GPU memory budget per rank: what is left for the KV cache.
void estimate_gpu_budget(SizingFit& s, const SizingInputs& in) {
  const auto& m = in.model;
  BudgetInputs bi;
  bi.total_gib = in.gpu_memory_gib.value_or(in.hw.usable_gib);
  bi.gpu_memory_utilization = in.gpu_memory_utilization;
  bi.tp = s.server.tensor_parallel_size;
  bi.pp = s.server.pipeline_parallel_size;
  bi.dp = s.server.data_parallel_size;
  bi.weight_dtype = s.server.weight_dtype;
  bi.max_num_batched_tokens = s.server.max_num_batched_tokens;
  bi.max_num_seqs = s.server.max_num_seqs;
  bi.vllm_version = in.vllm_version;
  bi.kv_cache_memory_bytes = in.kv_cache_memory_bytes;
  s.budget = estimate_budget(m, bi);
  s.kv_gib_available = std::max(0.0, s.budget.available_bytes) / kGiB;
  s.weights_fit = s.budget.available_bytes > 0;
}

// The GPU KV pool: blocks, tokens, full-length requests it holds, and the full-attention context
// it holds with every group's blocks accounted for.
void count_gpu_pool(SizingFit& s) {
  const double available = std::max(0.0, s.budget.available_bytes);
  const auto group_block_bytes = static_cast<double>(s.layout.page_bytes * s.layout.group_size);
  s.num_gpu_blocks = static_cast<std::int64_t>(std::floor(available / group_block_bytes));
  const std::int64_t bs = s.layout.block_size;
  s.gpu_kv_tokens = s.layout.uniform ? s.num_gpu_blocks * bs : s.num_gpu_blocks / s.layout.num_groups * bs;
  s.blocks_per_request =
      blocks_per_request(s.layout, s.server.max_model_len, s.server.max_num_batched_tokens);
  s.max_concurrency = static_cast<double>(s.num_gpu_blocks) / static_cast<double>(s.blocks_per_request);
  std::int64_t full_groups = 0;
  std::int64_t fixed_blocks = 0;
  for (const auto& t : s.layout.types) {
    if (t.kind == KvGroupKind::kFull) full_groups += t.groups;
  }
  fixed_blocks = s.blocks_per_request - full_groups * ((s.server.max_model_len + bs - 1) / bs);
  s.gpu_kv_tokens_capacity =
      full_groups > 0 ? std::max<std::int64_t>(0, s.num_gpu_blocks - fixed_blocks) / full_groups * bs : 0;
}

// Whether one request of max-model-len fits, and the longest that does.
void fit_one_request(SizingFit& s) {
  const double available = std::max(0.0, s.budget.available_bytes);
  const auto needed =
      static_cast<double>(request_bytes(s.layout, s.server.max_model_len, s.server.max_num_batched_tokens));
  s.kv_gib_needed_per_request = needed / kGiB;
  s.fits = s.weights_fit && needed <= available;
  s.estimated_max_model_len = s.fits ? s.server.max_model_len
                                     : max_len_that_fits(s.layout, available, s.server.max_num_batched_tokens,
                                                         s.server.max_model_len);
}

}  // namespace

SizingFit size_fit(const SizingInputs& in) {
  SizingFit s;
  describe_server(s, in);
  estimate_gpu_budget(s, in);
  count_gpu_pool(s);
  fit_one_request(s);
  return s;
}

namespace {

// The plan's first notes, on the server as sized: weights quantized at load, the search's choice.
void server_notes(SizingPlan& s, const SizingInputs& in) {
  const auto& m = in.model;
  if (in.quantization == Quantization::kFp8 && m.weight_dtype != "fp8" &&
      m.hf_id.find("FP8") == std::string::npos) {
    s.notes.emplace_back(std::in_place_type<Fp8AtLoadNote>);
  }
  if (in.configuration_search)
    s.notes.emplace_back(std::in_place_type<SearchNote>, SearchNote{*in.configuration_search});
}

// The CPU tier (for the shorter context that fits, where the requested one does not) and the
// reload estimate.
void plan_tier(SizingPlan& s, const SizingInputs& in) {
  if (!s.fits && s.weights_fit && s.estimated_max_model_len > 0 &&
      s.estimated_max_model_len < s.server.max_model_len) {
    // The command suggests the shorter context that fits; its CPU tier is sized for that length,
    // so the suggested command keeps the offloading flags.
    auto shorter_in = in;
    shorter_in.max_model_len = s.estimated_max_model_len;
    const auto shorter = size_fit(shorter_in);
    if (shorter.fits) {
      s.offload = plan_offload(shorter, shorter_in);
      s.offload->rule->requested_max_model_len = s.server.max_model_len;
    }
  }
  if (s.fits) {
    s.offload = plan_offload(s, in);
    s.reload = compare_reload_recompute(s, in);
    if (in.link && in.link->origin.host_backend) s.warnings.push_back(HostBackendLink{*in.link});
  }
}

// The caller's notes and warnings after the engine's; a traffic that cannot be simulated on this
// plan (no tier for the requested context) is said, and the rule's verdict says why its size is
// not a simulated one.
void add_caller_facts(SizingPlan& s, CallerFacts caller) {
  s.notes.insert(s.notes.end(), std::make_move_iterator(caller.notes.begin()),
                 std::make_move_iterator(caller.notes.end()));
  s.warnings.insert(s.warnings.end(), std::make_move_iterator(caller.warnings.begin()),
                    std::make_move_iterator(caller.warnings.end()));
  if (!caller.workload || s.simulable()) return;
  const NotSimulatedWorkload not_simulated{.workload = *caller.workload, .weights_fit = s.weights_fit};
  s.warnings.push_back(WorkloadNotSimulated{not_simulated});
  if (s.offload && s.offload->recommendation.verdict) {
    if (auto* rule = std::get_if<RuleVerdict>(&*s.offload->recommendation.verdict))
      rule->not_simulated = not_simulated;
  }
}

}  // namespace

// The plan: the fit, its notes, the tier and reload, the warnings and alternatives, the caller's
// facts. Each step reads what the steps before it produced; size_fit and search_configuration
// never call back into this.
SizingPlan plan_sizing(const SizingInputs& in, CallerFacts caller) {
  SizingPlan s(size_fit(in));
  server_notes(s, in);
  plan_tier(s, in);
  add_warnings(s, in);
  search_alternative(s, in);
  add_caller_facts(s, std::move(caller));
  return s;
}

namespace {

// The tier the commands give (recommended, or given) against the release's one-call registration
// of the /dev/shm region: a warning of the last stage alone, for the tier it writes.
void region_pin_warning(Sizing& s, const SizingInputs& in) {
  if (in.engine != EngineKind::kVllm || in.offloading_backend != OffloadingBackend::kNative || !s.offload)
    return;
  const auto& o = *s.offload;
  if (o.given_gib && region_pin_fails(*o.given_gib * kGiB, in.vllm_version)) {
    s.warnings.push_back(TierRegionPinFails{*o.given_gib, in.vllm_version, true});
  } else if (region_pin_fails(o.recommended_gib() * kGiB, in.vllm_version)) {
    s.warnings.push_back(TierRegionPinFails{o.recommended_gib(), in.vllm_version, false});
  }
}

}  // namespace

Sizing with_commands(SizingPlan plan, const SizingInputs& in, std::optional<OffloadPlan> tier) {
  Sizing s(std::move(plan));
  if (tier) s.offload = std::move(*tier);
  region_pin_warning(s, in);
  if (s.weights_fit) set_commands(s, in);  // else none: vLLM would fail to load
  return s;
}

Sizing compute_sizing(const SizingInputs& in, CallerFacts caller) {
  return with_commands(plan_sizing(in, std::move(caller)), in);
}

}  // namespace kvb
