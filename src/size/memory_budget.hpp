#pragma once
// The GPU memory vLLM leaves for KV cache on each rank (vllm/v1/worker/gpu_worker.py):
//   available = total x gpu_memory_utilization - (weights + activation peak + CUDA graphs + non-torch)
// Weights follow from the parameter count; the other three terms are a stated model fitted to
// two public vLLM logs (the budget itself: vllm/v1/worker/gpu_worker.py). --kv-cache-memory replaces the
// whole estimate.
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"

namespace kvb {

struct BudgetInputs {
  double total_gib = 0;  // per GPU
  double gpu_memory_utilization = 0.9;
  int tp = 1;
  int pp = 1;
  std::string weight_dtype = "bf16";  // after --quantization
  std::int64_t max_num_batched_tokens = 8192;
  std::optional<std::uint64_t> kv_cache_memory_bytes;
};

struct MemoryBudget {
  double total_gib = 0;
  double utilization = 0;
  double weights_gib = 0;
  double activation_gib = 0;
  double cuda_graph_gib = 0;
  double non_torch_gib = 0;
  double available_bytes = 0;  // may be negative: the model does not fit
  bool from_kv_cache_memory = false;
  // --kv-cache-memory beside the weights, activations and graphs: by how much they exceed the
  // whole GPU (vLLM then fails to allocate); 0 when they fit.
  double exceeds_gpu_gib = 0;
  std::string model_note;  // which estimate was used
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
