#pragma once
// The GPU memory vLLM leaves for KV cache on each rank (vllm/v1/worker/gpu_worker.py):
//   available = total x gpu_memory_utilization - (weights + activation peak + non-torch)
// (CUDA graphs are captured afterwards, in the headroom; memory_budget.cpp)
// Weights follow from the parameter count; the other three terms are a stated model fitted to
// two public vLLM logs (the budget itself: vllm/v1/worker/gpu_worker.py). --kv-cache-memory replaces the
// whole estimate.
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "catalog/vllm_host_memory.hpp"

namespace kvb {

struct BudgetInputs {
  double total_gib = 0;  // per GPU
  double gpu_memory_utilization = 0.9;
  int tp = 1;
  int pp = 1;
  int dp = 1;  // --data-parallel-size: a MoE model's routed experts span DP x TP x PP ranks
  std::string weight_dtype = "bf16";  // after --quantization
  // The server's (SizingFit::server: given, or vLLM's default on the GPU): no default of their own.
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
  VllmVersion vllm_version = kNewestModelledVllm;  // the sampler's warm-up differs by release
  std::optional<std::uint64_t> kv_cache_memory_bytes;
};

// vLLM's memory profile warms the sampler up after the dummy forward pass
// (gpu_model_runner.py profile_run -> _dummy_sampler_run): min(max-num-seqs,
// max-num-batched-tokens) requests, each with logits over the whole vocabulary, on every rank.
// What each logit takes at the peak depends on the release's top-k/top-p path (memory_budget.cpp).
struct SamplerWarmup {
  std::int64_t requests = 0;
  std::int64_t vocab_size = 0;
  int bytes_per_logit = 0;
  double gib = 0;
};
SamplerWarmup sampler_warmup(const ModelSpec& model, const BudgetInputs& in);

struct MemoryBudget {
  double total_gib = 0;
  double utilization = 0;
  double weights_gib = 0;
  double activation_gib = 0;  // the dummy forward pass's peak
  SamplerWarmup sampler;      // the sampler's warm-up; vLLM's profile takes the larger of the two
  double cuda_graph_gib = 0;
  double non_torch_gib = 0;
  double available_bytes = 0;  // may be negative: the model does not fit
  bool from_kv_cache_memory = false;
  // --kv-cache-memory beside the weights, activations and graphs: by how much they exceed the
  // whole GPU (vLLM then fails to allocate); 0 when they fit.
  double exceeds_gpu_gib = 0;
  std::string model_note;  // which estimate was used

  double profile_peak_gib() const { return activation_gib > sampler.gib ? activation_gib : sampler.gib; }
  // What the budget subtracts from utilization x total (not the CUDA graphs: memory_budget.cpp).
  double budget_gib() const { return weights_gib + profile_peak_gib() + non_torch_gib; }
  // Everything beside the KV cache on the GPU, graphs included (--kv-cache-memory-bytes' check).
  double rest_gib() const { return budget_gib() + cuda_graph_gib; }
};

// Calibration constants of the estimate, exposed for the tests that check them against logs.
struct BudgetModel {
  static constexpr double kActivationHiddenMultiple = 20.0;  // peak activation = 20 x tokens x hidden x 2 B
  static constexpr double kGraphGibPerLayerDense = 0.0171;   // 0.48 GiB / 28 layers
  static constexpr double kGraphGibPerLayerMoe = 0.0367;     // 3.45 GiB / 94 layers
  static constexpr double kNonTorchBaseGib = 0.06;
  static constexpr double kNonTorchPerPeerGib = 0.02;  // NCCL buffers per extra rank
};

MemoryBudget estimate_budget(const ModelSpec& model, const BudgetInputs& in);

}  // namespace kvb
