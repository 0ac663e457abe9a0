#pragma once
// vLLM's per-rank KV cache arithmetic (vllm/v1/kv_cache_interface.py, vllm/config/model.py): bytes per token
// per layer for each attention kind, the page (block) layout, the hybrid allocator's layer groups, and how
// many blocks one request of a given length needs.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"

namespace kvb {

struct KvSettings {
  std::string kv_cache_dtype = "auto";  // vLLM's --kv-cache-dtype
  int tp = 1;
  int pp = 1;
  int dp = 1;                    // --data-parallel-size: engines (each sized alike: per rank, per engine)
  bool expert_parallel = false;  // --enable-expert-parallel
  int block_size = 0;            // 0 = the attention backend's default
  bool hybrid_manager = true;    // false = --disable-hybrid-kv-cache-manager
  int draft_layers = 0;          // EAGLE / MTP layers that hold KV
};

enum class KvGroupKind { kFull, kSliding, kMamba };

// One kind of layer as vLLM's allocator sees it on the busiest rank.
struct KvLayerType {
  KvGroupKind kind = KvGroupKind::kFull;
  int layers = 0;                          // on the busiest pipeline stage
  std::int64_t bytes_per_token_layer = 0;  // full / sliding; 0 for Mamba
  std::int64_t state_bytes_layer = 0;      // Mamba: fixed state per sequence
  int groups = 0;                          // KV cache groups of `group_size` layers
};

// How the per-token figure of one layer on one rank was computed, step by step: facts, worded by
// output/size/kv_layout_text for the text and a size document read back (its "derivation" holds
// the facts: size/kv_derivation_json).
struct MlaSparseFp8Step {  // fp8_ds_mla: fp8 latent, fp32 scales per 128 values, bf16 RoPE
  int latent = 0, scale_bytes = 0, rope = 0;
  std::int64_t bytes = 0;
};
struct MlaLatentStep {  // one latent and the RoPE key, no K/V pair
  int kv_lora_rank = 0, rope = 0, dtype_bytes = 0;
  std::int64_t bytes = 0;
};
struct IndexerStep {  // DeepSeek's sparse-attention indexer keeps its own fp8 K cache
  int head_dim = 0, scale_bytes = 0;
  std::int64_t bytes = 0;
};
struct KvHeadsStep {  // GQA / MHA: K and V of this rank's KV heads
  bool mha = false;
  int heads_per_rank = 0, kv_heads = 0, tp = 1, head_dim = 0, dtype_bytes = 0;
  std::int64_t bytes = 0;
};
// A step read from a size document written before the steps were facts (a worded string): kept as
// worded, written back as {"kind": "worded", "text": ...}. compute_kv_layout never makes one.
struct WordedDerivationStep {
  std::string text;
};
using KvDerivationStep =
    std::variant<MlaSparseFp8Step, MlaLatentStep, IndexerStep, KvHeadsStep, WordedDerivationStep>;

// Why each TP rank holds the same KV: MLA's one latent per token, or fewer KV heads than ranks.
enum class ReplicationCause { kNone, kMlaLatent, kFewKvHeads };
struct KvReplication {
  ReplicationCause cause = ReplicationCause::kNone;
  int tp = 1, kv_heads = 0;
};

// Where the block size comes from: --block-size, the attention backend (sparse MLA's 64, the MLA
// backend's on this GPU, vLLM's 16), or raised so one attention page holds a Mamba state.
enum class BlockSizeSource { kFlag, kSparseMla, kMlaBackend, kBackendDefault, kMambaState };
struct BlockSizeReason {
  BlockSizeSource source = BlockSizeSource::kBackendDefault;
  std::string hardware;                   // kMlaBackend
  std::int64_t page_bytes_per_token = 0;  // kMambaState: one attention layer's bytes per token
  std::int64_t mamba_state_bytes = 0;     // kMambaState
};

struct KvLayout {
  std::string kv_dtype;  // resolved name, e.g. "bfloat16", "fp8", "fp8_ds_mla"
  int kv_dtype_bytes = 2;
  int block_size = 16;
  BlockSizeReason block_size_reason;
  std::vector<KvLayerType> types;
  int group_size = 0;  // layers per KV cache group (tensors sharing one block id)
  int num_groups = 0;
  std::int64_t page_bytes = 0;  // one block of one layer, after page-size unification
  bool uniform = true;          // one group type: num_blocks = available // (page * layers)
  bool replicated = false;      // the same KV on every TP rank (MLA, or kv heads < TP)
  KvReplication replication;
  int kv_heads_per_rank = 0;                 // GQA/MHA only
  int sliding_window = 0;                    // tokens, for sliding layers
  std::vector<KvDerivationStep> derivation;  // how the per-token figure was computed, step by step

  // Bytes per token per rank that grow with context (full-attention layers, indexer, drafts).
  std::int64_t kv_bytes_per_token() const;
  // Bytes per token per rank over every attention layer, sliding ones included.
  std::int64_t kv_bytes_per_token_all_layers() const;
  // Bytes of one block (block_size tokens) across all layers of the rank, as allocated.
  std::int64_t block_bytes_all_layers() const { return page_bytes * group_size * num_groups; }
};

// Throws UsageError for impossible settings (unknown dtype, TP not dividing the heads, a
// Mamba model with the hybrid manager disabled, ...), naming the flag and what is accepted.
KvLayout compute_kv_layout(const ModelSpec& model, const HardwareSpec& hw, const KvSettings& s);

// Blocks one request of `tokens` tokens holds at its peak, summed over groups.
std::int64_t blocks_per_request(const KvLayout& layout, std::int64_t tokens,
                                std::int64_t max_num_batched_tokens);

// vLLM's "KV cache needed" for one request: each layer's max_memory_usage_bytes, summed.
std::int64_t request_bytes(const KvLayout& layout, std::int64_t tokens, std::int64_t max_num_batched_tokens);

// Resolves --kv-cache-dtype to bytes per element, following the model dtype for "auto".
int kv_dtype_bytes(const std::string& kv_cache_dtype, const std::string& model_dtype);

// BF16 KV bytes per token at TP 1 on an H100 (vLLM's default block sizes): the catalog listing's
// column. Per-token bytes do not depend on the GPU; the layout needs one, so the listing names it.
inline constexpr const char* kReferenceHardware = "h100";
std::int64_t reference_kv_bytes_per_token(const ModelSpec& model);

}  // namespace kvb
