#include "size/memory_budget.hpp"

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "perf/weight_rules.hpp"

namespace kvb {

// Bytes per logit at the sampler's peak, by release (vllm/v1/sample/sampler.py, ops/topk_topp_sampler.py):
// the compute_logits output (bf16, 2 B) stays alive beside its float32 copy (4 B). From 0.11.1
// (#26859, 2025-10-14, made FlashInfer's sampler opt-in) to 0.16, top-k/top-p sorts the logits
// (apply_top_k_top_p_pytorch: values 4 B, int64 indices 8 B, a softmax 4 B and two masks 1 B
// each: 24 B itemized). The logged peaks say 39 B: 1,024 requests x the vocabulary x 37.8-39.6 B on
// six public logs of one release (gpt-oss-20b, Llama-3.1-8B, Llama-3.3-70B TP 2, Qwen3-0.6B, Qwen3-32B
// TP 1 and 2: llm-d-benchmark's empirical-vllm-memory-results.md, tests/data/ground-truth), and the
// 0.11.2 L40S pools of natoscott's study agree; the 15 B not itemized are not traced to their tensors
// (0.16 assumed so: its cut date is not known here). From 0.17 a Triton kernel filters in place
// (#33538, 2026-02-17) and, later, FlashInfer again (#40376): the peak is the sampling itself, probabilities
// 4 B and the exponential draws 4 B: 14 B. 0.11.0 ran FlashInfer's sampler by default (#11394): 14 B too.
SamplerWarmup sampler_warmup(const ModelSpec& m, const BudgetInputs& in) {
  SamplerWarmup w;
  w.requests = std::min(in.max_num_seqs, in.max_num_batched_tokens);
  w.vocab_size = m.vocab_size;
  const bool sorts = !(in.vllm_version < VllmVersion{0, 11, 1}) && in.vllm_version < VllmVersion{0, 17, 0};
  w.bytes_per_logit = sorts ? 39 : 14;
  w.gib = static_cast<double>(w.requests) * static_cast<double>(w.vocab_size) * w.bytes_per_logit / kGiB;
  return w;
}

MemoryBudget estimate_budget(const ModelSpec& m, const BudgetInputs& in) {
  MemoryBudget b;
  b.total_gib = in.total_gib;
  b.utilization = in.gpu_memory_utilization;
  const int ranks = in.tp * in.pp;
  b.weights_gib = weight_bytes_per_rank(m, in.weight_dtype, ranks, ranks * in.dp) / kGiB;
  b.activation_gib = BudgetModel::kActivationHiddenMultiple * static_cast<double>(in.max_num_batched_tokens) *
                     m.hidden_size * 2.0 / kGiB;
  b.sampler = sampler_warmup(m, in);
  const double layers_per_stage = std::ceil(static_cast<double>(m.num_hidden_layers) / in.pp);
  b.cuda_graph_gib = layers_per_stage * (m.num_experts > 0 ? BudgetModel::kGraphGibPerLayerMoe
                                                           : BudgetModel::kGraphGibPerLayerDense);
  // Under DP a MoE layer's communicator spans every engine's ranks.
  const int peers = has_routed_experts(m) ? ranks * in.dp : ranks;
  b.non_torch_gib = BudgetModel::kNonTorchBaseGib + BudgetModel::kNonTorchPerPeerGib * (peers - 1);
  b.model_note =
      "estimate: weights = params x bytes/param / ranks; "
      "activations = the larger of 20 x max-num-batched-tokens x hidden x 2 B and the sampler's warm-up "
      "(min(max-num-seqs, max-num-batched-tokens) x vocab x 14 or 39 B); "
      "non-torch 0.06 + 0.02/extra rank GiB; CUDA graphs (0.017 GiB/layer dense, 0.037 MoE) are captured "
      "after the KV cache, in the headroom gpu-memory-utilization leaves "
      "(fitted to two public vLLM logs; pass --kv-cache-memory-bytes for vLLM's exact figure)";
  if (in.kv_cache_memory_bytes) {
    // vLLM takes the KV cache size as given (gpu-memory-utilization no longer applies), but the
    // weights, activations and graphs still need the rest of the GPU.
    b.from_kv_cache_memory = true;
    b.model_note = "--kv-cache-memory-bytes replaces the budget (as in vLLM)";
    const double rest_gib = b.rest_gib();
    if (rest_gib >= b.total_gib) {
      b.available_bytes = (b.total_gib - rest_gib) * kGiB;  // the weights alone do not fit
      return b;
    }
    b.available_bytes = static_cast<double>(*in.kv_cache_memory_bytes);
    b.exceeds_gpu_gib = std::max(0.0, rest_gib + b.available_bytes / kGiB - b.total_gib);
    return b;
  }
  // vLLM V1 sizes the KV cache from the profile run, before it captures CUDA graphs
  // (gpu_worker.py: determine_available_memory, then compile_or_warm_up_model): the graphs come out
  // of the 1 - utilization headroom, not the budget. The logs agree: each logged KV figure is
  // utilization x total - weights - peak - non-torch, to 0.01 GiB (tests/unit/size).
  b.available_bytes = (b.total_gib * b.utilization - b.budget_gib()) * kGiB;
  return b;
}

}  // namespace kvb
