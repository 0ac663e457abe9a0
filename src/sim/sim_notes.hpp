#pragma once
// What a simulation approximates, as facts (the sizing_warnings pattern): prepare_simulation decides
// them, sim/sim_notes_json writes and reads them, output/simulate/sim_notes_text words them once.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "catalog/vllm_host_memory.hpp"
#include "perf/link_curve.hpp"

namespace kvb {

// The catalog's words about the model (resolve_model's warnings): worded where they arose.
struct ModelNote {
  std::string text;
};
// Sliding-window and Mamba groups folded into the full-attention block count vLLM logs.
struct HybridFoldedNote {};
// No max-model-len given and the model's own does not fit: what the GPU KV cache holds.
struct ContextDefaultedNote {
  std::int64_t tokens = 0;
};
// link-method kernel: steps that overlap a transfer run `slowdown` x slower (<= 1: not known).
struct KernelSlowdownNote {
  double slowdown = 1;
  std::optional<SlowdownOrigin> origin;
};
// LMCache's connector copies inside the step; its CPU lookup and hashing are not modelled.
struct LmcacheInStepNote {};
// kv-offloading-backend simple: the SimpleCPUOffloadConnector, simulated as the native tier's eager
// stores; its lazy offload and block-level preemption are not modelled (docs/size.md).
struct SimpleAsNativeNote {};
// kv-offloading-medium file: the tier is a file system at these rates (GB/s for the node), its
// stores seen once written, past 10 s of queued writes dropped (sim/file_tier.hpp).
struct FileTierNote {
  double read_gbps = 0, write_gbps = 0;
  bool stated = true;
};
// The tier's costs for a release newer than the newest source read.
struct TierCostsAssumedNote {
  VllmVersion version{}, read_up_to{};
};
// No GPU fabric: all-reduces share the PCIe links with the tier's copies.
struct FabricSharedNote {};
// Tensor-parallel all-reduces: whether the fabric is known and runs at `ranks` were scored.
struct TensorParallelNote {
  bool fabric_known = true, scored = false;
  int ranks = 1;
};
// Pipeline stages' transfers are not in the time model.
struct PipelineNote {};

// Where the simulated GPU block count came from: --num-gpu-blocks-override, the sizing engine's KV
// cache (`kv_bytes` on `hardware`), or its tokens with a hybrid layout folded into full-attention
// blocks. Worded by output/simulate/sim_notes_text wherever it is printed (simulate's "GPU KV blocks").
enum class GpuBlocksFrom { kOverride, kSizing, kHybridFolded };
struct GpuBlocksOrigin {
  GpuBlocksFrom from = GpuBlocksFrom::kSizing;
  double kv_bytes = 0;
  std::string hardware;
};

using SimNote = std::variant<ModelNote, HybridFoldedNote, ContextDefaultedNote, KernelSlowdownNote,
                             LmcacheInStepNote, SimpleAsNativeNote, FileTierNote, TierCostsAssumedNote,
                             FabricSharedNote, TensorParallelNote, PipelineNote>;

}  // namespace kvb
