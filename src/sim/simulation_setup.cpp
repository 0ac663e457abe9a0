#include "sim/simulation_setup.hpp"
#include "sim/tier_costs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

StepTimeModel make_predictor(const SizingInputs& in, const KvLayout& layout,
                             const std::string& weight_dtype) {
  return StepTimeModel(in.model, in.hw, static_cast<double>(layout.kv_bytes_per_token()), in.kv.tp,
                       weight_dtype, in.calibration);
}

}  // namespace

Scenario with_resolved_parallelism(const Scenario& s, const SizingInputs& in) {
  if (!s.server.tensor_parallel_auto && s.server.tensor_parallel_size == in.kv.tp &&
      s.server.pipeline_parallel_size == in.kv.pp && s.server.quantization == in.quantization) {
    return s;
  }
  auto server = s.server;
  server.tensor_parallel_size = in.kv.tp;
  server.tensor_parallel_auto = false;
  server.pipeline_parallel_size = in.kv.pp;
  server.quantization = in.quantization;  // the search may have picked FP8 weights
  return with_server(s, server);
}

SimulationSetup prepare_simulation(const Scenario& s, const std::optional<LinkProfile>& measured_link) {
  // The simulator times one engine's steps under TP (perf/step_time_model): DP engines' lock-step
  // MoE layers and EP's all-to-all are size's (docs/size.md), not refused silently into TP.
  if (s.server.data_parallel_size > 1 || s.server.enable_expert_parallel) {
    throw UsageError(
        fmt::format("{}: data-parallel-size {}{}: the simulator times one engine under tensor "
                    "parallelism only; expected data-parallel-size 1 without expert parallelism "
                    "(kvbench size sizes DP x EP)",
                    s.origin, s.server.data_parallel_size,
                    s.server.enable_expert_parallel ? " with enable-expert-parallel" : ""));
  }
  std::vector<std::string> model_warnings;
  auto in = make_sizing_inputs(resolve_model(s.server.model, model_warnings),
                               resolve_hardware(s.server.hardware), s.server);
  if (s.calibration) in.calibration = *s.calibration;  // size's recompute and the steps share it
  auto out = prepare_simulation(with_resolved_parallelism(s, in), in, compute_sizing(in), measured_link);
  for (const auto& w : model_warnings) out.notes.push_back(ModelNote{w});
  return out;
}

namespace {

// A server vLLM would not start: weights that do not fit, or a kv-cache-memory beside them that
// exceeds the GPU.
void refuse_unstartable(const Scenario& s, const SizingInputs& in, const SizingPlan& sizing) {
  if (!sizing.weights_fit) {
    // The explanation `kvbench size` gives, with its alternatives (more ranks, FP8 weights), which
    // the CLI words after the message.
    throw WeightsDoNotFit(
        fmt::format("{}: the {} weights of {} ({:.2f} GiB per rank) do not fit {} x {} ({:.2f} GiB each) at "
                    "tensor-parallel-size {}",
                    s.origin, sizing.server.weight_dtype, in.model.name, sizing.budget.weights_gib, in.kv.tp,
                    in.hw.name, sizing.budget.total_gib, in.kv.tp),
        sizing.alternatives);
  }
  if (sizing.budget.exceeds_gpu_gib > 0) {
    throw UsageError(
        fmt::format("{}: kv-cache-memory {} beside {:.2f} GiB of weights per rank exceeds {}'s {:.2f} GiB "
                    "by {:.2f} GiB; expected a kv-cache-memory that fits",
                    s.origin, format_bytes_binary(sizing.budget.available_bytes), sizing.budget.weights_gib,
                    in.hw.name, sizing.budget.total_gib, sizing.budget.exceeds_gpu_gib));
  }
}

// The GPU pool in blocks (the override, the sizing's, or a hybrid model's folded tokens) and the
// max-model-len it must hold.
void size_gpu_pool(SimulationSetup& out, const Scenario& s, const SizingInputs& in,
                   const SizingPlan& sizing) {
  const auto& v = s.server;
  const auto& layout = sizing.layout;
  const int bs = layout.block_size;
  if (v.num_gpu_blocks_override) {
    out.gpu_blocks = *v.num_gpu_blocks_override;
    out.gpu_blocks_origin.from = GpuBlocksFrom::kOverride;
  } else if (layout.uniform) {
    out.gpu_blocks = sizing.num_gpu_blocks;
    out.gpu_blocks_origin = {
        .from = GpuBlocksFrom::kSizing, .kv_bytes = sizing.kv_gib_available * kGiB, .hardware = in.hw.name};
  } else {
    out.gpu_blocks = sizing.gpu_kv_tokens / bs;
    out.gpu_blocks_origin.from = GpuBlocksFrom::kHybridFolded;
    out.notes.push_back(HybridFoldedNote{});
  }
  if (out.gpu_blocks <= 0) throw UsageError(fmt::format("{}: the GPU KV cache has no blocks left", s.origin));
  const auto pool_tokens = out.gpu_blocks * bs;
  if (v.max_model_len) {
    if (*v.max_model_len > pool_tokens) {
      throw UsageError(
          fmt::format("{}: key 'max-model-len' {} does not fit the GPU KV cache ({} tokens); "
                      "vLLM would refuse to start — lower it or give more memory",
                      s.origin, *v.max_model_len, format_count(pool_tokens)));
    }
    out.server.max_model_len = *v.max_model_len;
  } else {
    out.server.max_model_len = std::min<std::int64_t>(in.model.max_position_embeddings, pool_tokens);
    if (out.server.max_model_len < in.model.max_position_embeddings) {
      out.notes.push_back(ContextDefaultedNote{out.server.max_model_len});
    }
  }
}

// The link fabric and the notes the run's output states about its own modelling.
void note_modelling(SimulationSetup& out, const ServerSpec& v, const SizingInputs& in,
                    const SizingPlan& sizing) {
  // A file tier's copies run at the disk's rates, far below the link's: they do not slow the all-reduces.
  out.fabric_shares_host_link =
      in.kv.tp > 1 && in.hw.gpu_link_kind == GpuLinkKind::kPcie && in.hw.gpu_link_gbps > 0 && !out.file_tier;
  if (out.file_tier) {
    out.notes.push_back(FileTierNote{.read_gbps = out.file_tier->read_bytes_per_s / 1e9,
                                     .write_gbps = out.file_tier->write_bytes_per_s / 1e9,
                                     .stated = out.file_tier->stated});
  }
  if (out.offloading && v.kv_offloading_backend == OffloadingBackend::kLmcache) {
    out.notes.push_back(LmcacheInStepNote{});
  }
  if (out.offloading && v.kv_offloading_backend == OffloadingBackend::kSimple) {
    out.notes.push_back(SimpleAsNativeNote{});
  }
  if (out.offloading && tier_costs_assumed_for(v.vllm_version)) {
    out.notes.push_back(TierCostsAssumedNote{.version = v.vllm_version, .read_up_to = kTierCostsReadUpTo});
  }
  if (out.fabric_shares_host_link && out.offloading) {
    out.notes.push_back(FabricSharedNote{});
  }
  if (in.kv.tp > 1) {
    // Scored where this GPU's calibration holds a class of this many ranks (the training runs at
    // TP 2 and 4 on the H100); the expected-error line gives the figures.
    const auto& scored = in.calibration.scored;
    const bool scored_tp = std::any_of(scored.begin(), scored.end(), [&](const ScoredClass& c) {
      return c.ranks == sizing.server.world_size();
    });
    out.notes.push_back(TensorParallelNote{
        .fabric_known = in.hw.gpu_link_gbps > 0, .scored = scored_tp, .ranks = sizing.server.world_size()});
  }
  if (sizing.server.pipeline_parallel_size > 1) out.notes.push_back(PipelineNote{});
}

}  // namespace

SimulationSetup prepare_simulation(const Scenario& s, const SizingInputs& in, const SizingPlan& sizing,
                                   const std::optional<LinkProfile>& measured_link) {
  const auto& v = s.server;
  refuse_unstartable(s, in, sizing);
  const auto& layout = sizing.layout;
  SimulationSetup out{.scenario = s,
                      .model = in.model,
                      .hw = in.hw,
                      .layout = layout,
                      .server = sizing.server,
                      .predictor = make_predictor(in, layout, sizing.server.weight_dtype)};
  size_gpu_pool(out, s, in, sizing);
  out.block_bytes_per_rank = static_cast<double>(layout.block_bytes_all_layers());
  out.cpu_block_bytes = out.block_bytes_per_rank * out.server.world_size();
  if (v.kv_offloading_size) {
    out.offloading = true;
    out.cpu_blocks = cpu_blocks_for(*v.kv_offloading_size, static_cast<std::int64_t>(out.cpu_block_bytes));
  }
  out.file_tier = file_tier_figures(s);  // first: a file tier's own refusals name its keys
  out.secondary = secondary_tier_figures(s, out.cpu_block_bytes);
  out.link = measured_link ? *measured_link : in.link ? *in.link : link_profile_from_hardware(in.hw);
  if (v.link_method == Method::kKernel) {
    out.notes.push_back(
        KernelSlowdownNote{.slowdown = out.link.kernel_compute_slowdown, .origin = out.link.slowdown_origin});
  }
  note_modelling(out, v, in, sizing);
  return out;
}

ExpectedError expected_error_for(const SimulationSetup& setup) {
  ExpectedError e{
      .moe = setup.model.num_experts > 0,
      .weights = setup.server.weight_dtype,
      .ranks = setup.server.world_size(),
      .hardware = setup.hw.name,
      .scored = setup.predictor.calibration().scored,
      .fleet = setup.scenario.fleet.replicas > 1,
      // The classes' figures are from runs under load, which batch-1 runs contradict (docs/accuracy.md).
      .one_in_flight = setup.server.max_num_seqs == 1};
  // The batch-1 runs were scored with the GPU's own figures: a calibration of one's own has none.
  const auto from = setup.predictor.calibration().origin.from;
  if (!e.one_in_flight || (from != CalibrationFrom::kDefaults && from != CalibrationFrom::kHardwareTable))
    return e;
  for (const auto& [hw, classes] : one_in_flight_classes()) {
    if (hw == e.hardware) e.at_one = classes;
    for (const auto& c : classes) {
      auto& all = e.at_one_anywhere;
      all.tpot_error_min = all.runs == 0 ? c.tpot_error_min : std::min(all.tpot_error_min, c.tpot_error_min);
      all.tpot_error_max = all.runs == 0 ? c.tpot_error_max : std::max(all.tpot_error_max, c.tpot_error_max);
      all.runs += c.runs;
    }
  }
  return e;
}

}  // namespace kvb
