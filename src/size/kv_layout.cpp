#include "size/kv_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "catalog/hardware_figures.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
int cdiv_int(int a, int b) { return (a + b - 1) / b; }

// Mamba2 state per sequence per layer on one rank: the conv window plus the SSM state.
std::int64_t mamba_state_bytes(const ModelSpec& m, int tp, int dtype_bytes) {
  const std::int64_t inner = static_cast<std::int64_t>(m.mamba.num_heads) * m.mamba.head_dim;
  const std::int64_t conv_dim = inner + 2LL * m.mamba.n_groups * m.mamba.state_size;
  const std::int64_t conv = conv_dim / tp * (m.mamba.conv_kernel - 1);
  const std::int64_t ssm =
      static_cast<std::int64_t>(m.mamba.num_heads) / tp * m.mamba.head_dim * m.mamba.state_size;
  return (conv + ssm) * dtype_bytes;
}

int default_block_size(const ModelSpec& m, const HardwareSpec& hw, BlockSizeReason& reason) {
  if (m.attention == AttentionKind::kMla && m.sparse_mla) {
    reason.source = BlockSizeSource::kSparseMla;  // FlashMLA-sparse forces 64-token blocks
    return 64;
  }
  if (m.attention == AttentionKind::kMla) {
    reason.source = BlockSizeSource::kMlaBackend;
    reason.hardware = hw.name;
    return hw.mla_block_size;
  }
  reason.source = BlockSizeSource::kBackendDefault;  // vLLM's default on CUDA and ROCm
  return 16;
}

}  // namespace

// Sliding-window layers hold at most the window plus one scheduling step, plus one block.
static std::int64_t sliding_blocks(const KvLayout& l, std::int64_t tokens,
                                   std::int64_t max_num_batched_tokens) {
  const std::int64_t span = std::min<std::int64_t>(l.sliding_window - 1 + max_num_batched_tokens, tokens);
  return cdiv(span, l.block_size) + 1;
}

int kv_dtype_bytes(const std::string& kv_cache_dtype, const std::string& model_dtype) {
  if (kv_cache_dtype == "auto") return model_dtype == "fp32" ? 4 : 2;
  if (kv_cache_dtype == "bfloat16" || kv_cache_dtype == "float16" || kv_cache_dtype == "half") return 2;
  if (kv_cache_dtype == "fp8" || kv_cache_dtype == "fp8_e4m3" || kv_cache_dtype == "fp8_e5m2" ||
      kv_cache_dtype == "fp8_inc" || kv_cache_dtype == "fp8_ds_mla") {
    return 1;
  }
  throw UsageError(
      fmt::format("--kv-cache-dtype '{}' is unknown; expected auto, bfloat16, float16, fp8, fp8_e4m3, "
                  "fp8_e5m2 or fp8_ds_mla",
                  kv_cache_dtype));
}

std::int64_t KvLayout::kv_bytes_per_token() const {
  std::int64_t sum = 0;
  for (const auto& t : types) {
    if (t.kind == KvGroupKind::kFull) sum += t.bytes_per_token_layer * t.layers;
  }
  return sum;
}

std::int64_t KvLayout::kv_bytes_per_token_all_layers() const {
  std::int64_t sum = 0;
  for (const auto& t : types) sum += t.bytes_per_token_layer * t.layers;
  return sum;
}

namespace {

// What vLLM refuses at start: a TP that does not divide the heads, more stages than layers.
void check_parallelism(const ModelSpec& m, const KvSettings& s) {
  if (s.tp < 1 || s.pp < 1)
    throw UsageError("--tensor-parallel-size and --pipeline-parallel-size must be at least 1");
  if (m.num_attention_heads % s.tp != 0) {
    throw UsageError(
        fmt::format("--tensor-parallel-size {}: {} has {} attention heads, which {} does not divide; "
                    "expected a divisor of {} (vLLM refuses to start otherwise)",
                    s.tp, m.name, m.num_attention_heads, s.tp, m.num_attention_heads));
  }
  if (s.pp > m.num_hidden_layers) {
    throw UsageError(
        fmt::format("--pipeline-parallel-size {} exceeds the {} layers of {}; expected at most {}", s.pp,
                    m.num_hidden_layers, m.name, m.num_hidden_layers));
  }
  if (s.draft_layers < 0 || s.draft_layers > 16) {
    throw UsageError(fmt::format("--draft-layers {}: expected 0 to 16 extra KV layers", s.draft_layers));
  }
}

// fp8_ds_mla is DeepSeek's sparse-MLA cache format: vLLM's FlashMLA-sparse backend lists it
// (vllm/v1/attention/backends/mla/flashmla_sparse.py, supported_kv_cache_dtypes), and the GQA
// backends know fp8 and fp8_e4m3 only (vllm/v1/attention/backends/flash_attn.py,
// get_fp8_dtype_for_flashattn: "Unrecognized FP8 dtype"). A dense MLA or a GQA model is refused.
void check_kv_dtype(const ModelSpec& m, const KvSettings& s) {
  if (s.kv_cache_dtype != "fp8_ds_mla" || m.sparse_mla) return;
  throw UsageError(
      fmt::format("--kv-cache-dtype fp8_ds_mla is only for sparse-MLA models (DeepSeek V3.2, GLM-5); {} is "
                  "not one ({}); expected fp8 or auto",
                  m.name, m.attention == AttentionKind::kMla ? "dense MLA" : "GQA/MHA attention"));
}

// MLA: one latent (plus the RoPE key, an fp8_ds_mla scale block, a DSA indexer key) per token
// and layer, replicated on every TP rank. Returns the per-token bytes of one layer on one rank.
std::int64_t mla_bytes_per_token(const ModelSpec& m, const KvSettings& s, KvLayout& out) {
  const int dt = out.kv_dtype_bytes;
  std::int64_t full_bytes = 0;
  const bool ds_fp8 = m.sparse_mla && dt == 1;
  if (ds_fp8) {
    // fp8_ds_mla: 512 fp8 latent values, 4 fp32 scales, 64 bf16 RoPE values.
    full_bytes = m.mla.kv_lora_rank + m.mla.kv_lora_rank / 128 * 4 + m.mla.qk_rope_head_dim * 2;
    out.kv_dtype = "fp8_ds_mla";
    out.derivation.push_back(MlaSparseFp8Step{.latent = m.mla.kv_lora_rank,
                                              .scale_bytes = m.mla.kv_lora_rank / 128 * 4,
                                              .rope = m.mla.qk_rope_head_dim,
                                              .bytes = full_bytes});
  } else {
    full_bytes = static_cast<std::int64_t>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * dt;
    out.derivation.push_back(MlaLatentStep{.kv_lora_rank = m.mla.kv_lora_rank,
                                           .rope = m.mla.qk_rope_head_dim,
                                           .dtype_bytes = dt,
                                           .bytes = full_bytes});
  }
  if (m.indexer_head_dim > 0) {
    const std::int64_t idx = m.indexer_head_dim + m.indexer_head_dim / 128 * 4;
    full_bytes += idx;
    out.derivation.push_back(IndexerStep{
        .head_dim = m.indexer_head_dim, .scale_bytes = m.indexer_head_dim / 128 * 4, .bytes = idx});
  }
  if (s.tp > 1) {
    out.replicated = true;
    out.replication =
        KvReplication{.cause = ReplicationCause::kMlaLatent, .tp = s.tp, .kv_heads = m.num_kv_heads};
  }
  return full_bytes;
}

// GQA/MHA: K and V of this rank's KV heads (at least one: heads are replicated past TP = heads).
std::int64_t gqa_bytes_per_token(const ModelSpec& m, const KvSettings& s, KvLayout& out) {
  const int dt = out.kv_dtype_bytes;
  out.kv_heads_per_rank = std::max(1, m.num_kv_heads / s.tp);
  const std::int64_t full_bytes = 2LL * out.kv_heads_per_rank * m.head_dim * dt;
  out.derivation.push_back(KvHeadsStep{.mha = m.num_kv_heads == m.num_attention_heads,
                                       .heads_per_rank = out.kv_heads_per_rank,
                                       .kv_heads = m.num_kv_heads,
                                       .tp = s.tp,
                                       .head_dim = m.head_dim,
                                       .dtype_bytes = dt,
                                       .bytes = full_bytes});
  if (m.num_kv_heads < s.tp) {
    out.replicated = true;
    out.replication =
        KvReplication{.cause = ReplicationCause::kFewKvHeads, .tp = s.tp, .kv_heads = m.num_kv_heads};
  }
  return full_bytes;
}

// The layer kinds on the busiest pipeline stage (sliding counted as full without the hybrid
// manager; draft layers as full).
void add_layer_types(const ModelSpec& m, const KvSettings& s, std::int64_t full_bytes, KvLayout& out) {
  auto per_stage = [&](int n) { return cdiv_int(n, s.pp); };
  const bool treat_sliding_as_full = !s.hybrid_manager;
  const int full_layers =
      per_stage(m.full_attention_layers() + (treat_sliding_as_full ? m.sliding_layers : 0)) + s.draft_layers;
  const int sliding_layers = treat_sliding_as_full ? 0 : per_stage(m.sliding_layers);
  const int mamba_layers = per_stage(m.mamba_layers);
  if (mamba_layers > 0 && !s.hybrid_manager) {
    throw UsageError(
        fmt::format("--disable-hybrid-kv-cache-manager: {} has Mamba layers and vLLM fails with \"Hybrid KV "
                    "cache manager is disabled but failed to convert the KV cache specs to one unified "
                    "type\"; expected the hybrid manager on",
                    m.name));
  }
  if (full_layers > 0) out.types.push_back({KvGroupKind::kFull, full_layers, full_bytes, 0, 0});
  if (sliding_layers > 0) out.types.push_back({KvGroupKind::kSliding, sliding_layers, full_bytes, 0, 0});
  if (mamba_layers > 0) {
    out.types.push_back(
        {KvGroupKind::kMamba, mamba_layers, 0, mamba_state_bytes(m, s.tp, out.kv_dtype_bytes), 0});
  }
}

void choose_block_size(const ModelSpec& m, const HardwareSpec& hw, const KvSettings& s, KvLayout& out) {
  if (s.block_size != 0) {
    if (!is_vllm_block_size(s.block_size)) {
      throw UsageError(
          fmt::format("--block-size {}: expected one of 1, 8, 16, 32, 64, 128, 256", s.block_size));
    }
    out.block_size = s.block_size;
    out.block_size_reason.source = BlockSizeSource::kFlag;
  } else {
    out.block_size = default_block_size(m, hw, out.block_size_reason);
  }
}

// Hybrid allocator: groups of equal layer count so every group shares one block pool; with Mamba
// layers the attention block grows until one page holds a Mamba state.
void group_hybrid_layers(std::int64_t full_bytes, KvLayout& out) {
  int min_layers = out.types[0].layers;
  int max_layers = out.types[0].layers;
  for (const auto& t : out.types) {
    min_layers = std::min(min_layers, t.layers);
    max_layers = std::max(max_layers, t.layers);
  }
  // Few padding layers: use the largest count; otherwise the smallest (vLLM's rule).
  out.group_size = (max_layers * 4 < min_layers * 5) ? max_layers : min_layers;
  out.num_groups = 0;
  for (auto& t : out.types) {
    t.groups = cdiv_int(t.layers, out.group_size);
    out.num_groups += t.groups;
  }
  std::int64_t attn_page = static_cast<std::int64_t>(out.block_size) * full_bytes;
  if (out.types.back().kind == KvGroupKind::kMamba) {
    // Attention blocks grow until one attention page holds a Mamba state (16-token steps).
    const std::int64_t state = out.types.back().state_bytes_layer;
    if (attn_page < state) {
      const std::int64_t tokens = cdiv(state, full_bytes);
      out.block_size = static_cast<int>(cdiv(tokens, 16) * 16);
      out.block_size_reason = BlockSizeReason{.source = BlockSizeSource::kMambaState,
                                              .hardware = {},
                                              .page_bytes_per_token = full_bytes,
                                              .mamba_state_bytes = state};
      attn_page = static_cast<std::int64_t>(out.block_size) * full_bytes;
    }
  }
  out.page_bytes = attn_page;
}

}  // namespace

KvLayout compute_kv_layout(const ModelSpec& m, const HardwareSpec& hw, const KvSettings& s) {
  check_parallelism(m, s);
  check_kv_dtype(m, s);
  KvLayout out;
  out.kv_dtype_bytes = kv_dtype_bytes(s.kv_cache_dtype, m.dtype);
  // A value, not a sentence: vLLM's --kv-cache-dtype spelling with the dtype "auto" resolves to.
  out.kv_dtype = s.kv_cache_dtype == "auto" ? fmt::format("auto ({})", m.dtype) : s.kv_cache_dtype;
  // Per-token bytes of one full-attention layer on one rank.
  const std::int64_t full_bytes =
      m.attention == AttentionKind::kMla ? mla_bytes_per_token(m, s, out) : gqa_bytes_per_token(m, s, out);
  add_layer_types(m, s, full_bytes, out);
  choose_block_size(m, hw, s, out);
  out.sliding_window = m.sliding_window;
  out.uniform = out.types.size() == 1;
  if (out.uniform) {
    out.group_size = out.types[0].layers;
    out.num_groups = 1;
    out.types[0].groups = 1;
    out.page_bytes = out.types[0].kind == KvGroupKind::kMamba
                         ? out.types[0].state_bytes_layer
                         : static_cast<std::int64_t>(out.block_size) * out.types[0].bytes_per_token_layer;
    return out;
  }
  group_hybrid_layers(full_bytes, out);
  return out;
}

std::int64_t blocks_per_request(const KvLayout& layout, std::int64_t tokens,
                                std::int64_t max_num_batched_tokens) {
  const std::int64_t bs = layout.block_size;
  std::int64_t blocks = 0;
  for (const auto& t : layout.types) {
    switch (t.kind) {
      case KvGroupKind::kFull:
        blocks += t.groups * cdiv(tokens, bs);
        break;
      case KvGroupKind::kSliding:
        blocks += t.groups * sliding_blocks(layout, tokens, max_num_batched_tokens);
        break;
      case KvGroupKind::kMamba:
        blocks += t.groups;
        break;
    }
  }
  return blocks;
}

std::int64_t request_bytes(const KvLayout& layout, std::int64_t tokens, std::int64_t max_num_batched_tokens) {
  const std::int64_t bs = layout.block_size;
  std::int64_t bytes = 0;
  for (const auto& t : layout.types) {
    switch (t.kind) {
      case KvGroupKind::kFull:
        bytes += t.layers * cdiv(tokens, bs) * layout.page_bytes;
        break;
      case KvGroupKind::kSliding:
        bytes += t.layers * sliding_blocks(layout, tokens, max_num_batched_tokens) * layout.page_bytes;
        break;
      case KvGroupKind::kMamba:
        bytes += t.layers * layout.page_bytes;
        break;
    }
  }
  return bytes;
}

std::int64_t reference_kv_bytes_per_token(const ModelSpec& model) {
  KvSettings bf16;
  bf16.kv_cache_dtype = "bfloat16";
  bf16.draft_layers = 0;
  return compute_kv_layout(model, resolve_hardware(kReferenceHardware), bf16).kv_bytes_per_token();
}

}  // namespace kvb
