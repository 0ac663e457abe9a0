#include "size/sizing_inputs.hpp"

#include <fmt/format.h>

#include <utility>

#include "catalog/offload_support.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "perf/weight_rules.hpp"
#include "size/configuration_search.hpp"
#include "size/sizing_engine.hpp"

namespace kvb {
namespace {

// DP and EP as vLLM would start them: EP needs routed experts, and DP x TP engines fit one node.
void check_data_expert_parallel(const ModelSpec& model, const HardwareSpec& hw, const ServeSettings& serve,
                                EngineKind engine) {
  if ((serve.data_parallel_size > 1 || serve.enable_expert_parallel) && engine != EngineKind::kVllm) {
    throw UsageError(
        fmt::format("--data-parallel-size / --enable-expert-parallel with --engine {}: sized for "
                    "vLLM only; expected --engine vllm",
                    to_string(engine)));
  }
  if (serve.enable_expert_parallel && !has_routed_experts(model)) {
    throw UsageError(
        fmt::format("--enable-expert-parallel: {} has no routed experts; expected a "
                    "mixture-of-experts model (or no expert parallelism)",
                    model.name));
  }
  const int gpus = serve.data_parallel_size * serve.tensor_parallel_size;
  if (serve.data_parallel_size > 1 && !serve.tensor_parallel_auto && gpus > hw.gpus_per_node) {
    throw UsageError(
        fmt::format("--data-parallel-size {} x --tensor-parallel-size {} = {} GPUs: more than "
                    "the {} of one {} node; expected DP x TP within the node",
                    serve.data_parallel_size, serve.tensor_parallel_size, gpus, hw.gpus_per_node, hw.name));
  }
}

}  // namespace

SizingInputs make_sizing_inputs(const ModelSpec& model, const HardwareSpec& hw, const ServeSettings& serve,
                                const NodeOverrides& node) {
  check_backend_release(serve.kv_offloading_backend, serve.vllm_version);
  check_data_expert_parallel(model, hw, serve, node.engine);
  SizingInputs in;
  in.model = model;
  in.hw = hw;
  in.kv.kv_cache_dtype = serve.kv_cache_dtype;
  in.kv.tp = serve.tensor_parallel_size;
  in.kv.pp = serve.pipeline_parallel_size;
  in.kv.dp = serve.data_parallel_size;
  in.kv.expert_parallel = serve.enable_expert_parallel;
  in.search_data_parallel = node.search_data_parallel;
  in.kv.block_size = serve.block_size;
  in.kv.hybrid_manager = serve.hybrid_kv_cache_manager;
  in.kv.draft_layers = serve.draft_layers;
  in.max_num_batched_tokens = serve.max_num_batched_tokens;  // absent: resolved once, by size_fit
  in.gpu_memory_utilization = serve.gpu_memory_utilization;
  in.kv_cache_memory_bytes = serve.kv_cache_memory;
  in.max_num_seqs = serve.max_num_seqs;
  in.max_model_len = serve.max_model_len;
  in.kv_offloading_size_gib = serve.kv_offloading_size;
  if (serve.secondary_tier_size && *serve.secondary_tier_size > 0)
    in.secondary_tier_gib = serve.secondary_tier_size;
  in.offloading_backend = serve.kv_offloading_backend;
  in.quantization = serve.quantization;
  in.gpu_memory_gib = node.gpu_memory_gib;
  in.host_memory_gb = node.host_memory_gb;
  in.concurrency = node.concurrency;
  in.engine = node.engine;
  in.secondary_tier_dir = node.secondary_tier_dir;
  in.vllm_version = serve.vllm_version;
  if (node.engine == EngineKind::kLmcache) in.offloading_backend = OffloadingBackend::kLmcache;
  // A connector without hybrid support: vLLM turns the hybrid manager off for the tier it sizes.
  if (in.engine == EngineKind::kVllm && in.offloading_backend == OffloadingBackend::kNative &&
      offload_support(offload_layout_kind(model), hw.vendor, in.vllm_version).status ==
          OffloadStatus::kSlidingAsFull) {
    in.hybrid_off_by_connector = in.kv.hybrid_manager;
    in.kv.hybrid_manager = false;
  }
  in.calibration = node.calibration.empty() ? default_calibration(hw) : load_calibration(node.calibration);
  if (node.link) in.link = node.link;
  if (!serve.tensor_parallel_auto) return in;
  // No --tp (or --tp auto): the smallest configuration that holds the weights and one request,
  // chosen before anything is sized. What was tried goes with the inputs: the plan notes it and
  // runs no search of its own (sizing_engine.cpp, search_alternative: where the other use is).
  const auto search = search_configuration(in);
  if (search.found) in = search.found->inputs;
  in.configuration_search = search.tried;
  return in;
}

SizedConfigurations size_configurations(const std::vector<ModelSpec>& models,
                                        const std::vector<HardwareSpec>& hws, const ServeSettings& serve,
                                        const NodeOverrides& node) {
  const auto& written = serve.max_model_len_as_written;
  std::vector<Sizing> all;
  for (const auto& hw : hws) {
    for (const auto& m : models) {
      const auto in = make_sizing_inputs(m, hw, serve, node);
      CallerFacts caller;
      if (!written.empty()) {
        // The length read is the one sized (size_fit's max_model_len): --max-model-len is given.
        caller.notes.emplace_back(
            std::in_place_type<ContextSuffixNote>,
            ContextSuffixNote{written, in.max_model_len.value_or(in.model.max_position_embeddings)});
      }
      all.push_back(compute_sizing(in, std::move(caller)));
    }
  }
  // One configuration whose checkpoint-dtype weights do not fit: the FP8-weights answer too.
  // (Without --tp the configuration search has already tried FP8 weights.)
  if (all.size() == 1 && !all.front().weights_fit && serve.quantization == Quantization::kNone &&
      !serve.tensor_parallel_auto) {
    auto fp8 = serve;
    fp8.quantization = Quantization::kFp8;
    auto alt = compute_sizing(make_sizing_inputs(models.front(), hws.front(), fp8, node));
    if (alt.server.weight_dtype != all.front().server.weight_dtype) {
      all.push_back(std::move(alt));
      return {std::move(all), true};
    }
  }
  return {std::move(all), false};
}

}  // namespace kvb
