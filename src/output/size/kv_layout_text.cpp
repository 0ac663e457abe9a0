#include "output/size/kv_layout_text.hpp"

#include <fmt/format.h>

#include <variant>

#include "core/units.hpp"

namespace kvb {
namespace {

std::string step_text(const MlaSparseFp8Step& s) {
  return fmt::format("MLA, fp8_ds_mla: {} fp8 latent + {} B scales + {} bf16 RoPE = {} B per layer", s.latent,
                     s.scale_bytes, s.rope, s.bytes);
}
std::string step_text(const MlaLatentStep& s) {
  return fmt::format("MLA: (kv_lora_rank {} + qk_rope_head_dim {}) x {} B = {} B per layer (no K/V pair)",
                     s.kv_lora_rank, s.rope, s.dtype_bytes, s.bytes);
}
std::string step_text(const IndexerStep& s) {
  return fmt::format("DSA indexer K cache: {} fp8 + {} B scale = {} B per layer", s.head_dim, s.scale_bytes,
                     s.bytes);
}
std::string step_text(const KvHeadsStep& s) {
  return fmt::format(
      "{}: 2 (K,V) x {} KV head{}/rank (max(1, {} // TP {})) x head_dim {} x {} B = {} B per layer",
      s.mha ? "MHA" : "GQA", s.heads_per_rank, s.heads_per_rank == 1 ? "" : "s", s.kv_heads, s.tp, s.head_dim,
      s.dtype_bytes, s.bytes);
}

std::string step_text(const WordedDerivationStep& s) { return s.text; }  // an older document's, as written

}  // namespace

std::vector<std::string> kv_derivation_lines(const std::vector<KvDerivationStep>& steps) {
  std::vector<std::string> lines;
  for (const auto& step : steps)
    lines.push_back(std::visit([](const auto& s) { return step_text(s); }, step));
  return lines;
}

std::vector<std::string> kv_derivation_lines(const KvLayout& l) { return kv_derivation_lines(l.derivation); }

std::string replication_text(const KvReplication& r) {
  switch (r.cause) {
    case ReplicationCause::kMlaLatent:
      return fmt::format("MLA keeps one latent per token, replicated on each of the {} TP ranks", r.tp);
    case ReplicationCause::kFewKvHeads:
      return fmt::format("{} KV heads < TP {}: each head is replicated on {} ranks", r.kv_heads, r.tp,
                         r.kv_heads > 0 ? r.tp / r.kv_heads : r.tp);
    case ReplicationCause::kNone:
      break;
  }
  return {};
}

std::string block_size_reason_text(const KvLayout& l) {
  const auto& r = l.block_size_reason;
  switch (r.source) {
    case BlockSizeSource::kFlag:
      return "--block-size";
    case BlockSizeSource::kSparseMla:
      return "FlashMLA-sparse forces 64-token blocks";
    case BlockSizeSource::kMlaBackend:
      return fmt::format("vLLM's default MLA backend on {} uses {}-token blocks", r.hardware, l.block_size);
    case BlockSizeSource::kBackendDefault:
      return "vLLM's default on CUDA and ROCm";
    case BlockSizeSource::kMambaState:
      return fmt::format("raised so one attention page ({} B/token/layer) holds a Mamba state of {}",
                         r.page_bytes_per_token,
                         format_bytes_binary(static_cast<double>(r.mamba_state_bytes)));
  }
  return {};
}

}  // namespace kvb
