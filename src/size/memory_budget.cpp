#include "size/memory_budget.hpp"

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "perf/weight_rules.hpp"

namespace kvb {

MemoryBudget estimate_budget(const ModelSpec& m, const BudgetInputs& in) {
  MemoryBudget b;
  b.total_gib = in.total_gib;
  b.utilization = in.gpu_memory_utilization;
  const int ranks = in.tp * in.pp;
  b.weights_gib = weight_bytes_per_rank(m, in.weight_dtype, ranks) / kGiB;
  b.activation_gib = BudgetModel::kActivationHiddenMultiple * static_cast<double>(in.max_num_batched_tokens) *
                     m.hidden_size * 2.0 / kGiB;
  const double layers_per_stage = std::ceil(static_cast<double>(m.num_hidden_layers) / in.pp);
  b.cuda_graph_gib = layers_per_stage * (m.num_experts > 0 ? BudgetModel::kGraphGibPerLayerMoe
                                                           : BudgetModel::kGraphGibPerLayerDense);
  b.non_torch_gib = BudgetModel::kNonTorchBaseGib + BudgetModel::kNonTorchPerPeerGib * (ranks - 1);
  b.model_note =
      "estimate: weights = params x bytes/param / ranks; activations = 20 x max-num-batched-tokens x hidden "
      "x 2 B; "
      "CUDA graphs 0.017 GiB/layer dense, 0.037 MoE; non-torch 0.06 + 0.02/extra rank GiB (fitted to two "
      "public "
      "vLLM logs; pass --kv-cache-memory-bytes for vLLM's exact figure)";
  if (in.kv_cache_memory_bytes) {
    // vLLM takes the KV cache size as given (gpu-memory-utilization no longer applies), but the
    // weights, activations and graphs still need the rest of the GPU.
    b.from_kv_cache_memory = true;
    b.model_note = "--kv-cache-memory-bytes replaces the budget (as in vLLM)";
    const double rest_gib = b.weights_gib + b.activation_gib + b.cuda_graph_gib + b.non_torch_gib;
    if (rest_gib >= b.total_gib) {
      b.available_bytes = (b.total_gib - rest_gib) * kGiB;  // the weights alone do not fit
      return b;
    }
    b.available_bytes = static_cast<double>(*in.kv_cache_memory_bytes);
    b.exceeds_gpu_gib = std::max(0.0, rest_gib + b.available_bytes / kGiB - b.total_gib);
    return b;
  }
  b.available_bytes =
      (b.total_gib * b.utilization - b.weights_gib - b.activation_gib - b.cuda_graph_gib - b.non_torch_gib) *
      kGiB;
  return b;
}

}  // namespace kvb
