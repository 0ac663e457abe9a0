#include "sim/server_fields.hpp"

#include <fmt/format.h>

#include "catalog/hardware_figures.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "sim/tier_costs.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {
namespace {

// --- the model and the GPU (their flags: cli/server_flags' --model and --hw, each command's meaning) ---

void model_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (!o.has("model")) throw UsageError(fmt::format("{}: missing required key 'model'", o.origin()));
  v.model = o.str("model");
}
void model_to_yaml(const ServerSpec& v, YAML::Node& n) { n["model"] = v.model; }
void hardware_from_yaml(const YamlObject& o, ServerSpec& v) { v.hardware = o.str_or("hardware", v.hardware); }
void hardware_to_yaml(const ServerSpec& v, YAML::Node& n) { n["hardware"] = v.hardware; }

// --- parallelism ---

// 'auto': the smallest configuration that fits one request, as `size --tp auto` (resolved in
// prepare_simulation by the same configuration search).
void tp_from_flag(const std::string& text, ServeSettings& v) {
  v.tensor_parallel_auto = text == "auto";
  if (!v.tensor_parallel_auto)
    v.tensor_parallel_size =
        static_cast<int>(parse_int_in(text, "--tensor-parallel-size", 1, kMaxParallelRanks));
}
void tp_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("tensor-parallel-size") && o.str("tensor-parallel-size") == "auto") {
    v.tensor_parallel_auto = true;
  } else {
    v.tensor_parallel_auto = false;  // an override's number replaces an earlier auto
    v.tensor_parallel_size =
        static_cast<int>(positive_int(o, "tensor-parallel-size", 1, false, kMaxParallelRanks));
  }
}
void tp_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.tensor_parallel_auto) {
    n["tensor-parallel-size"] = "auto";
  } else {
    n["tensor-parallel-size"] = v.tensor_parallel_size;
  }
}
void pp_from_flag(const std::string& text, ServeSettings& v) {
  v.pipeline_parallel_size =
      static_cast<int>(parse_int_in(text, "--pipeline-parallel-size", 1, kMaxParallelRanks));
}
void pp_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.pipeline_parallel_size =
      static_cast<int>(positive_int(o, "pipeline-parallel-size", 1, false, kMaxParallelRanks));
}
void pp_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["pipeline-parallel-size"] = v.pipeline_parallel_size;
}

// --data-parallel-size: engines; --enable-expert-parallel: a switch (vLLM's own spelling).
void dp_from_flag(const std::string& text, ServeSettings& v) {
  v.data_parallel_size = static_cast<int>(parse_int_in(text, "--data-parallel-size", 1, kMaxParallelRanks));
}
void dp_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.data_parallel_size = static_cast<int>(positive_int(o, "data-parallel-size", 1, false, kMaxParallelRanks));
}
// Written only where set: a scenario of one engine reads as before.
void dp_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.data_parallel_size > 1) n["data-parallel-size"] = v.data_parallel_size;
}
void ep_from_flag(const std::string& /*switched on*/, ServeSettings& v) { v.enable_expert_parallel = true; }
void ep_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.enable_expert_parallel = o.boolean_or("enable-expert-parallel", false);
}
void ep_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.enable_expert_parallel) n["enable-expert-parallel"] = true;
}

// --- memory ---

void utilization_from_flag(const std::string& text, ServeSettings& v) {
  v.gpu_memory_utilization = parse_real_in(text, "--gpu-memory-utilization", 0.0, 1.0);
}
void utilization_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.gpu_memory_utilization = positive(o, "gpu-memory-utilization", v.gpu_memory_utilization, false, 1.0);
}
void utilization_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["gpu-memory-utilization"] = v.gpu_memory_utilization;
}
void kv_memory_from_flag(const std::string& text, ServeSettings& v) {
  v.kv_cache_memory = parse_bytes(text, "--kv-cache-memory").bytes;
}
void kv_memory_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.kv_cache_memory = bytes_or_none(o, "kv-cache-memory");
}
void kv_memory_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.kv_cache_memory) n["kv-cache-memory"] = std::to_string(*v.kv_cache_memory);
}
void blocks_override_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("num-gpu-blocks-override"))
    v.num_gpu_blocks_override = positive_int(o, "num-gpu-blocks-override", 1);
}
void blocks_override_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.num_gpu_blocks_override) n["num-gpu-blocks-override"] = *v.num_gpu_blocks_override;
}
// vLLM's largest block is 256 tokens; hybrid models' larger pages are kvbench's to choose.
void block_size_from_flag(const std::string& text, ServeSettings& v) {
  v.block_size = static_cast<int>(parse_int_in(text, "--block-size", 1, kMaxBlockTokens));
}
void block_size_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.block_size = static_cast<int>(positive_int(o, "block-size", 0, true, kMaxBlockTokens));
}
void block_size_to_yaml(const ServerSpec& v, YAML::Node& n) { n["block-size"] = v.block_size; }
void dtype_from_flag(const std::string& text, ServeSettings& v) { v.kv_cache_dtype = text; }
void dtype_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.kv_cache_dtype = o.str_or("kv-cache-dtype", v.kv_cache_dtype);
}
void dtype_to_yaml(const ServerSpec& v, YAML::Node& n) { n["kv-cache-dtype"] = v.kv_cache_dtype; }

// --- context and batching ---

void context_from_flag(const std::string& text, ServeSettings& v) {
  v.max_model_len = parse_token_count(text, "--max-model-len");
  const bool suffixed = text.find_first_not_of("0123456789") != std::string::npos;
  v.max_model_len_as_written = suffixed ? text : "";
}
// Absent = the model's own length; given, it must be a length (0 is refused, as size --ctx 0).
void context_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("max-model-len")) v.max_model_len = positive_int(o, "max-model-len", 0);
}
void context_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.max_model_len) n["max-model-len"] = *v.max_model_len;
}
// Absent: what vLLM takes on the GPU (server/serve_settings.hpp), resolved with the hardware.
void batched_from_flag(const std::string& text, ServeSettings& v) {
  v.max_num_batched_tokens = parse_token_count(text, "--max-num-batched-tokens");
}
void batched_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("max-num-batched-tokens"))
    v.max_num_batched_tokens = positive_int(o, "max-num-batched-tokens", 0);
}
void batched_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.max_num_batched_tokens) n["max-num-batched-tokens"] = *v.max_num_batched_tokens;
}
void seqs_from_flag(const std::string& text, ServeSettings& v) {
  v.max_num_seqs = parse_positive_int(text, "--max-num-seqs", false, kMaxNumSeqs);
}
void seqs_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("max-num-seqs")) v.max_num_seqs = positive_int(o, "max-num-seqs", 0, false, kMaxNumSeqs);
}
void seqs_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.max_num_seqs) n["max-num-seqs"] = *v.max_num_seqs;
}
void prefix_caching_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.enable_prefix_caching = o.boolean_or("enable-prefix-caching", true);
}
void prefix_caching_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["enable-prefix-caching"] = v.enable_prefix_caching;
}

// --- the tier ---

void tier_size_from_flag(const std::string& text, ServeSettings& v) {
  v.kv_offloading_size = parse_gib_size(text, "--kv-offloading-size");
}
// null (or absent): no CPU tier, also over an earlier size (an override's `null`)
void tier_size_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.kv_offloading_size.reset();
  if (o.has("kv-offloading-size") && !o.node()["kv-offloading-size"].IsNull())
    v.kv_offloading_size = positive(o, "kv-offloading-size", 0, true, 1e6);
}
void tier_size_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.kv_offloading_size) {
    n["kv-offloading-size"] = *v.kv_offloading_size;
  } else {
    n["kv-offloading-size"] = YAML::Null;
  }
}
void backend_from_flag(const std::string& text, ServeSettings& v) {
  v.kv_offloading_backend = parse_offloading_backend(text, "--kv-offloading-backend");
}
void backend_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.kv_offloading_backend = parse_offloading_backend(o.str_or("kv-offloading-backend", "native"),
                                                     o.origin() + ": key 'kv-offloading-backend'");
}
void backend_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["kv-offloading-backend"] = to_string(v.kv_offloading_backend);
}

// --- weights ---

void quantization_from_flag(const std::string& text, ServeSettings& v) {
  v.quantization = parse_quantization(text, "--quantization");
}
void quantization_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.quantization = parse_quantization(o.str_or("quantization", "none"), o.origin() + ": key 'quantization'");
}
void quantization_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["quantization"] = to_string(v.quantization);
}
void draft_from_flag(const std::string& text, ServeSettings& v) {
  v.draft_layers = static_cast<int>(parse_int_in(text, "--draft-layers", 0, 16));
}
void draft_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.draft_layers = static_cast<int>(positive_int(o, "draft-layers", 0, true, 16));
}
void draft_to_yaml(const ServerSpec& v, YAML::Node& n) { n["draft-layers"] = v.draft_layers; }
// The flag is vLLM's --disable-hybrid-kv-cache-manager; the key says what is on.
void hybrid_from_flag(const std::string& /*switched on*/, ServeSettings& v) {
  v.hybrid_kv_cache_manager = false;
}
void hybrid_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.hybrid_kv_cache_manager = o.boolean_or("hybrid-kv-cache-manager", true);
}
void hybrid_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["hybrid-kv-cache-manager"] = v.hybrid_kv_cache_manager;
}

// --- the simulator's own, the copy method and the release ---

void eviction_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.eviction_policy =
      one_of(o, "eviction-policy", "lru", {"lru", "arc"}) == "arc" ? EvictionKind::kArc : EvictionKind::kLru;
}
void eviction_to_yaml(const ServerSpec& v, YAML::Node& n) {
  n["eviction-policy"] = v.eviction_policy == EvictionKind::kArc ? "arc" : "lru";
}
void threshold_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.store_threshold = static_cast<int>(positive_int(o, "store-threshold", 1));
}
void threshold_to_yaml(const ServerSpec& v, YAML::Node& n) { n["store-threshold"] = v.store_threshold; }
void method_from_flag(const std::string& text, ServeSettings& v) {
  v.link_method = parse_method(text, "--link-method");
}
void method_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.link_method = parse_method(one_of(o, "link-method", "ce", {"ce", "ce-batch", "kernel"}), o.origin());
}
void method_to_yaml(const ServerSpec& v, YAML::Node& n) { n["link-method"] = to_string(v.link_method); }
void version_from_flag(const std::string& text, ServeSettings& v) {
  v.vllm_version = parse_vllm_version(text, "--vllm-version");
}
void version_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("vllm-version"))
    v.vllm_version = parse_vllm_version(o.str("vllm-version"), o.origin() + ": key 'vllm-version'");
}
void version_to_yaml(const ServerSpec& v, YAML::Node& n) { n["vllm-version"] = to_string(v.vllm_version); }
// all, none, one name or a list of them
void costs_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (!o.has("tier-costs")) return;
  const auto names = o.node()["tier-costs"].IsScalar() ? std::vector<std::string>{o.str("tier-costs")}
                                                       : o.str_list_or("tier-costs");
  v.tier_costs = parse_tier_costs(names, o.origin() + ": key 'tier-costs'");
}
void costs_to_yaml(const ServerSpec& v, YAML::Node& n) { n["tier-costs"] = tier_cost_names(v.tier_costs); }
void reserve_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("scheduler-reserve-full-isl"))
    v.scheduler_reserve_full_isl = o.boolean_or("scheduler-reserve-full-isl", true);
}
void reserve_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.scheduler_reserve_full_isl) n["scheduler-reserve-full-isl"] = *v.scheduler_reserve_full_isl;
}

// The model, GPU, parallelism, memory and batching fields: the server's shape.
std::vector<ServerField> shape_fields() {
  return {
      {"model", "", "", false, false, nullptr, model_from_yaml, model_to_yaml},
      {"hardware", "", "", false, false, nullptr, hardware_from_yaml, hardware_to_yaml},
      {"tensor-parallel-size", "--tensor-parallel-size,--tp",
       "TP ranks, or auto: the smallest configuration that fits one request (TP within a node, then FP8 "
       "weights, "
       "then pipeline stages across nodes)",
       true, false, tp_from_flag, tp_from_yaml, tp_to_yaml, true},
      {"pipeline-parallel-size", "--pipeline-parallel-size,--pp", "PP stages (vLLM's default 1)", true, false,
       pp_from_flag, pp_from_yaml, pp_to_yaml, true},
      {"data-parallel-size", "--data-parallel-size,--dp",
       "DP engines (vLLM's default 1): each its own KV cache and CPU tier; a MoE model's experts span DP x "
       "TP "
       "ranks",
       false, false, dp_from_flag, dp_from_yaml, dp_to_yaml, true},
      {"enable-expert-parallel", "--enable-expert-parallel",
       "MoE models: whole experts per rank over DP x TP ranks (EP), all-to-all instead of the MoE all-reduce",
       false, true, ep_from_flag, ep_from_yaml, ep_to_yaml, true},
      {"gpu-memory-utilization", "--gpu-memory-utilization",
       "share of GPU memory vLLM may use (vLLM's default 0.9)", false, false, utilization_from_flag,
       utilization_from_yaml, utilization_to_yaml, true},
      {"kv-cache-memory", "--kv-cache-memory,--kv-cache-memory-bytes",
       "KV bytes per rank, replacing the budget (e.g. 3.81GiB); vLLM's --kv-cache-memory-bytes", false, false,
       kv_memory_from_flag, kv_memory_from_yaml, kv_memory_to_yaml, true},
      {"num-gpu-blocks-override", "", "", false, false, nullptr, blocks_override_from_yaml,
       blocks_override_to_yaml},
      {"block-size", "--block-size", "tokens per block (default: the attention backend's)", false, false,
       block_size_from_flag, block_size_from_yaml, block_size_to_yaml, true},
      {"kv-cache-dtype", "--kv-cache-dtype",
       "auto (the default), bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla", false, false,
       dtype_from_flag, dtype_from_yaml, dtype_to_yaml, true},
      {"max-model-len", "--max-model-len,--ctx",
       std::string(kContextLengthForms) + " (default: the model's own)", false, false, context_from_flag,
       context_from_yaml, context_to_yaml, true},
      {"max-num-batched-tokens", "--max-num-batched-tokens",
       "tokens per scheduler step (vLLM's default: 8192 on GPUs of 70 GiB or more other than the A100, else "
       "2048)",
       false, false, batched_from_flag, batched_from_yaml, batched_to_yaml, true},
      {"max-num-seqs", "--max-num-seqs",
       "sequences per step (vLLM's default: 1024 on GPUs of 70 GiB or more other than the A100, else 256)",
       false, false, seqs_from_flag, seqs_from_yaml, seqs_to_yaml, true},
      {"enable-prefix-caching", "", "", false, false, nullptr, prefix_caching_from_yaml,
       prefix_caching_to_yaml},
  };
}

// The CPU tier's fields, its cost mechanisms and the release that decides them.
std::vector<ServerField> tier_fields() {
  // --vllm-version's help text (the field table drives the flags): CLI help, not a result.
  const auto versions = fmt::format(
      "the vLLM release served (default {}): how the tier takes host memory (docs/host-memory.md) and what "
      "it "
      "costs the engine (docs/accuracy.md)",
      to_string(kNewestModelledVllm));
  return {
      {"kv-offloading-size", "--kv-offloading-size",
       "the CPU tier's size (GiB, all ranks); size evaluates it beside its own recommendation", false, false,
       tier_size_from_flag, tier_size_from_yaml, tier_size_to_yaml},
      {"kv-offloading-backend", "--kv-offloading-backend",
       "native (the default), lmcache, or simple (vLLM's SimpleCPUOffloadConnector, 0.19+)", false, false,
       backend_from_flag, backend_from_yaml, backend_to_yaml, true},
      {"quantization", "--quantization", "weights: none (checkpoint dtype, the default) or fp8", false, false,
       quantization_from_flag, quantization_from_yaml, quantization_to_yaml, true},
      {"draft-layers", "--draft-layers", "extra KV layers of a draft model (EAGLE 1, MTP 1)", false, false,
       draft_from_flag, draft_from_yaml, draft_to_yaml, true},
      {"hybrid-kv-cache-manager", "--disable-hybrid-kv-cache-manager",
       "size as vLLM does with the hybrid manager off", false, true, hybrid_from_flag, hybrid_from_yaml,
       hybrid_to_yaml, true},
      {"eviction-policy", "", "", false, false, nullptr, eviction_from_yaml, eviction_to_yaml},
      {"store-threshold", "", "", false, false, nullptr, threshold_from_yaml, threshold_to_yaml},
      {"link-method", "--link-method",
       "how the tier copies, and which method of --link-profile to fit: ce (the default, vLLM's native "
       "tier), "
       "ce-batch, kernel",
       false, false, method_from_flag, method_from_yaml, method_to_yaml},
      {"vllm-version", "--vllm-version", versions, false, false, version_from_flag, version_from_yaml,
       version_to_yaml, true},
      {"tier-costs", "", "", false, false, nullptr, costs_from_yaml, costs_to_yaml},
      {"scheduler-reserve-full-isl", "", "", false, false, nullptr, reserve_from_yaml, reserve_to_yaml},
  };
}

std::vector<ServerField> make_fields() {
  auto fields = shape_fields();
  for (auto& f : tier_fields()) fields.push_back(std::move(f));
  for (auto& f : secondary_tier_fields()) fields.push_back(std::move(f));
  return fields;
}

}  // namespace

const std::vector<ServerField>& server_fields() {
  static const std::vector<ServerField> fields = make_fields();
  return fields;
}

YAML::Node server_to_yaml(const ServerSpec& v) {
  YAML::Node n;
  for (const auto& f : server_fields()) f.to_yaml(v, n);
  return n;
}

}  // namespace kvb
