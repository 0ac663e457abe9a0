#include "output/simulate/sim_notes_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "output/common/link_origin_text.hpp"
#include "sim/file_tier.hpp"

namespace kvb {
namespace {

std::string word(const ModelNote& n) { return n.text; }
std::string word(const HybridFoldedNote&) {
  return "hybrid model: sliding-window and Mamba groups are folded into the full-attention block count vLLM "
         "logs; their per-request fixed blocks are not simulated separately";
}
std::string word(const ContextDefaultedNote& n) {
  return fmt::format("max-model-len defaulted to {} tokens, what the GPU KV cache holds",
                     format_count(n.tokens));
}
std::string word(const KernelSlowdownNote& n) {
  if (n.slowdown > 1.0 && n.origin) {
    return fmt::format(
        "link-method kernel: engine steps that overlap a transfer run {:.2f}x slower, the copy kernel's SMs "
        "taken from the model ({})",
        n.slowdown, slowdown_source_text(*n.origin));
  }
  return "link-method kernel: what the copy kernel's SMs take from the model is unknown for this link (a "
         "--link-profile with kvbench dma --method kernel --with-compute records gives it)";
}
std::string word(const LmcacheInStepNote&) {
  return "kv-offloading-backend lmcache: LMCache's connector stores each request's full 256-token prompt "
         "chunks after the forward pass and retrieves its hits before it, inside the step (tier cost "
         "lmcache-sync); its lookup and hashing on the CPU are not modelled";
}
std::string word(const SimpleAsNativeNote&) {
  return "kv-offloading-backend simple: the SimpleCPUOffloadConnector is simulated as the native tier, "
         "storing each block as it fills; its lazy offload (lazy_offload true) and block-level preemption "
         "are not modelled, and it has not been scored against a real server (docs/size.md)";
}
std::string word(const FileTierNote& n) {
  return fmt::format(
      "kv-offloading-medium file: the tier is a file system, as llm-d's file-system connector runs it: "
      "loads at {:.3g} GB/s and stores at {:.3g} GB/s for the node ({}), a block a hit once its file is "
      "written, stores past {:.0f} s of queued writes dropped; the page cache and the connector's "
      "multi-block files are not modelled",
      n.read_gbps, n.write_gbps, n.stated ? "stated" : "measured by kvbench storage", kFileWriteQueueSeconds);
}
std::string word(const TierCostsAssumedNote& n) {
  return fmt::format(
      "what the tier costs vLLM {} is assumed from its source as of {} (the newest read; docs/accuracy.md "
      "lists "
      "each mechanism's releases)",
      to_string(n.version), to_string(n.read_up_to));
}
std::string word(const FabricSharedNote&) {
  return "no GPU fabric: tensor-parallel all-reduces cross the same PCIe links as the CPU tier's copies, and "
         "each slows the other while both run (tier cost fabric-sharing)";
}
std::string word(const TensorParallelNote& n) {
  if (!n.fabric_known)
    return "tensor-parallel communication is not in the time model (the GPU fabric is unknown)";
  if (n.scored) {
    return fmt::format(
        "tensor-parallel all-reduces are modelled from the fabric's datasheet figure, scored with the rest "
        "of "
        "the time model on real vLLM runs at {} ranks on this GPU",
        n.ranks);
  }
  return fmt::format(
      "tensor-parallel all-reduces are modelled from the fabric's datasheet figure, not fitted: no real vLLM "
      "run "
      "at {} ranks on this GPU has been scored",
      n.ranks);
}
std::string word(const PipelineNote&) {
  return "pipeline-parallel transfers between stages are not in the time model";
}

}  // namespace

std::string sim_note_text(const SimNote& n) {
  return std::visit([](const auto& fact) { return word(fact); }, n);
}

std::string gpu_blocks_text(const GpuBlocksOrigin& o) {
  switch (o.from) {
    case GpuBlocksFrom::kOverride:
      return "num-gpu-blocks-override";
    case GpuBlocksFrom::kHybridFolded:
      return "sizing engine, hybrid layout folded into full-attention blocks";
    case GpuBlocksFrom::kSizing:
      break;
  }
  return fmt::format("sizing engine: {} KV cache on {}", format_bytes_binary(o.kv_bytes), o.hardware);
}

std::string gpu_blocks_text(const std::variant<GpuBlocksOrigin, std::string>& o) {
  if (const auto* words = std::get_if<std::string>(&o)) return *words;
  return gpu_blocks_text(std::get<GpuBlocksOrigin>(o));
}

}  // namespace kvb
