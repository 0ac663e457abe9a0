#pragma once
// What vLLM's native CPU tier (the OffloadingConnector behind --kv-offloading-size) does with each
// kind of attention, per vLLM release and GPU platform: one table, each row with its source (the
// .cpp). size states it for the model it sizes and refuses a tier the release cannot start with.
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "catalog/vllm_host_memory.hpp"

namespace kvb {

// The attention layout as the connector sees it: one KV cache group, or several (hybrid models).
enum class OffloadLayoutKind {
  kFullAttention,  // MHA / GQA, every layer full attention: one group
  kMla,            // MLA latent, one group, the same on every TP rank
  kSparseMla,      // DeepSeek sparse attention: the MLA latent plus the indexer's own K cache
  kSlidingHybrid,  // full + sliding-window layers (gpt-oss, Gemma): two kinds of group
  kMambaHybrid,    // attention + Mamba / linear-attention layers (Nemotron-H, Qwen3-Next)
};

enum class OffloadStatus {
  kOffloadsAll,       // every layer's KV goes to the tier, block by block
  kOffloadsPerGroup,  // hybrid manager kept: each KV cache group stores its own blocks (one slot
                      // per block and group), attention and Mamba/sliding groups alike
  kSlidingAsFull,     // the connector has no hybrid support: vLLM turns the hybrid manager off and
                      // holds (and offloads) the sliding-window layers as full attention
  kRefuses,           // vLLM does not start, or fails on the first transfer, with a tier
};

struct OffloadSupport {
  OffloadLayoutKind kind = OffloadLayoutKind::kFullAttention;
  OffloadStatus status = OffloadStatus::kOffloadsAll;
  VllmVersion from{0, 11, 0};  // the rows' release range: [from, until); until {0,0,0} = open
  VllmVersion until{};
  bool amd_only = false;     // the row is ROCm's (else it holds on every platform not overridden)
  const char* failure = "";  // what vLLM prints where it refuses ("" where no message is published)
  const char* needs = "";    // a flag the release needs to offload this layout ("" = none)
  const char* source = "";
};

OffloadLayoutKind offload_layout_kind(const ModelSpec& m);
// The row for this layout on this platform in this release (the newest modelled release's row for a
// newer one). Always found: every kind has a row for every release from 0.11.
const OffloadSupport& offload_support(OffloadLayoutKind kind, GpuVendor vendor, const VllmVersion& v);

std::string to_string(OffloadLayoutKind k);  // "full attention", "MLA", ...

}  // namespace kvb
