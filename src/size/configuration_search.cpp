#include "size/configuration_search.hpp"

#include <fmt/format.h>

#include <vector>

#include "catalog/weight_format.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "perf/weight_rules.hpp"
#include "size/sizing_engine.hpp"

namespace kvb {
namespace {

struct Candidate {
  int tp = 1;
  int pp = 1;
  Quantization quantization = Quantization::kNone;
};

// Whether --quantization fp8 changes the weights (a quantized checkpoint keeps its own format).
bool fp8_shrinks(const ModelSpec& m) {
  return weight_format(m.weight_dtype).compute == WeightCompute::k16Bit;
}

std::vector<int> node_tps(const SizingInputs& in) {
  std::vector<int> out;
  for (int tp = 1; tp <= in.hw.gpus_per_node; tp *= 2) {
    if (in.model.num_attention_heads % tp == 0) out.push_back(tp);
  }
  if (out.empty()) out.push_back(1);
  return out;
}

std::vector<Candidate> candidates(const SizingInputs& in) {
  std::vector<Quantization> dtypes{in.quantization};
  if (in.quantization == Quantization::kNone && fp8_shrinks(in.model)) dtypes.push_back(Quantization::kFp8);
  const auto tps = node_tps(in);
  std::vector<Candidate> out;
  for (const auto q : dtypes) {
    for (const int tp : tps) out.push_back({tp, 1, q});
  }
  for (int pp = 2; pp <= kMaxSearchNodes; pp *= 2) {
    for (const auto q : dtypes) out.push_back({tps.back(), pp, q});
  }
  return out;
}

ConfigurationLabel short_label(const Candidate& c, const ModelSpec& m) {
  return {c.tp, c.pp, c.quantization == Quantization::kFp8 && fp8_shrinks(m)};
}

// The largest attention TP, dividing the TP found, at which each rank stores its own KV: 1 for MLA
// (one latent per token whatever the TP), the KV heads for GQA with fewer heads than ranks.
int unreplicated_tp(const ModelSpec& m, int tp_found) {
  if (m.attention == AttentionKind::kMla) return 1;
  int tp = tp_found;
  while (tp > 1 && (tp > m.num_kv_heads || tp_found % tp != 0)) --tp;
  return tp;
}

// Data parallelism with expert parallelism over the GPUs the TP configuration takes, where that
// configuration replicates a MoE model's KV: vLLM's recipes run DeepSeek-V3 on 8 x H200 as TP 8 +
// EP or DP 8 + EP ("tensor-parallel is usually better for low-latency / low-load scenarios, while
// data-parallel works better for high-load workloads": docs.vllm.ai/projects/recipes, DeepSeek/
// DeepSeek-V3), and Qwen3-Coder-480B-A35B's FP8 as DP 8 + EP (Qwen/Qwen3-Coder-480B-A35B). The
// rule is capacity, which this tool sizes: chosen where the DP engines hold more distinct tokens
// than the TP pool's replicated ones and each engine still holds one request of the length asked.
std::optional<FoundConfiguration> try_data_parallel(const FoundConfiguration& tp, SearchTried& tried) {
  const auto& in = tp.inputs;
  if (!in.search_data_parallel || in.engine != EngineKind::kVllm || !has_routed_experts(in.model) ||
      in.kv.pp != 1 || !tp.sizing.layout.replicated)
    return std::nullopt;
  auto dp_in = in;
  dp_in.kv.tp = unreplicated_tp(in.model, in.kv.tp);
  dp_in.kv.dp = in.kv.tp / dp_in.kv.tp;
  dp_in.kv.expert_parallel = true;
  auto s = size_fit(dp_in);
  DataParallelTried d{.dp = dp_in.kv.dp,
                      .tp = dp_in.kv.tp,
                      .tp_found = in.kv.tp,
                      .mla = in.model.attention == AttentionKind::kMla,
                      .kv_heads = in.model.num_kv_heads,
                      .tp_tokens = tp.sizing.gpu_context_tokens(),
                      .engine_tokens = s.gpu_context_tokens(),
                      .engine_fits = s.fits,
                      .chosen = false,
                      .weights_gib = s.budget.weights_gib,
                      .tp_weights_gib = tp.sizing.budget.weights_gib};
  d.chosen = s.fits && d.dp * d.engine_tokens > d.tp_tokens;
  tried.data_parallel = d;
  if (!d.chosen) return std::nullopt;
  return FoundConfiguration{std::move(dp_in), std::move(s)};
}

}  // namespace

ConfigurationFlags configuration_flags(const SizingInputs& in) {
  const int gpus = in.kv.tp * in.kv.pp;
  return {.tp = in.kv.tp,
          .pp = in.kv.pp,
          .fp8 = in.quantization == Quantization::kFp8 && fp8_shrinks(in.model),
          .gpus = gpus,
          .nodes = (gpus + in.hw.gpus_per_node - 1) / in.hw.gpus_per_node,
          .hardware = in.hw.name};
}

ConfigurationSearch search_configuration(const SizingInputs& base) {
  ConfigurationSearch out;
  for (const auto& c : candidates(base)) {
    auto in = base;
    in.kv.tp = c.tp;
    in.kv.pp = c.pp;
    in.quantization = c.quantization;
    auto s = size_fit(in);
    if (s.fits) {
      out.tried.found = true;
      out.tried.fits = short_label(c, base.model);
      out.tried.tokens = s.server.max_model_len;
      out.found = FoundConfiguration{std::move(in), std::move(s)};
      if (auto dp = try_data_parallel(*out.found, out.tried)) out.found = std::move(dp);
      return out;
    }
    out.tried.too_small.push_back(short_label(c, base.model));
  }
  out.tried.tokens = base.max_model_len.value_or(base.model.max_position_embeddings);
  return out;
}

}  // namespace kvb
