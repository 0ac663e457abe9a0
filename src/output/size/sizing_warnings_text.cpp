#include "output/size/sizing_warnings_text.hpp"

#include <fmt/format.h>

#include "catalog/vllm_releases.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "output/common/link_origin_text.hpp"
#include "output/size/kv_layout_text.hpp"
#include "output/size/tier_advice_text.hpp"

namespace kvb {

namespace {

std::string word(const ContextBeyondTrained& w) {
  if (!w.extension.empty()) {
    return fmt::format(
        "--max-model-len {} exceeds {}'s max_position_embeddings {}: its model card extends it with {}; "
        "without that vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
        w.max_model_len, w.model, w.max_position_embeddings, w.extension);
  }
  return fmt::format(
      "--max-model-len {} exceeds {}'s max_position_embeddings {}: vLLM refuses it unless "
      "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, and quality beyond the trained length is not guaranteed",
      w.max_model_len, w.model, w.max_position_embeddings);
}

std::string word(const WorkloadServerKeysIgnored& w) {
  return fmt::format(
      "workload {}: its server keys ({}) describe the machine it was written for; size sizes the server your "
      "flags describe and does not use them (kvbench simulate {} runs them)",
      w.workload, join(w.keys, ", "), w.simulate_as);
}

std::string word(const WorkloadNotSimulated& w) { return not_simulated_text(w.workload); }

std::string word(const ReplicatedKv& w) {
  return fmt::format("replicated KV: {}; the CPU tier stores {} copies too", replication_text(w.replication),
                     w.copies);
}

std::string word(const TierRefused& w) {
  const auto platform = w.vendor == GpuVendor::kAmd ? "ROCm" : "CUDA";
  return fmt::format(
      "--kv-offloading-size: vLLM {}'s native CPU tier cannot offload {} models on {}{}; serve without a CPU "
      "tier{} (source: {})",
      to_string(w.version), to_string(w.kind), platform,
      w.failure.empty() ? std::string(" (reported unsupported)")
                        : fmt::format(": it fails with \"{}\"", w.failure),
      w.kind == OffloadLayoutKind::kMambaHybrid
          ? " or use vLLM 0.21 or later, whose connector supports hybrid models"
          : "",
      w.source);
}

std::string word(const SlidingAsFull& w) {
  const double ratio =
      static_cast<double>(w.bytes_per_token_full) / static_cast<double>(w.bytes_per_token_hybrid);
  if (w.by_connector) {
    return fmt::format(
        "vLLM {}'s OffloadingConnector has no hybrid support, so vLLM turns the hybrid KV cache manager off "
        "with --kv-offloading-size: the {} sliding-window layers are held and offloaded as full attention, "
        "KV "
        "per token grows from {} to {} B (x{:.2f}); vLLM 0.21 or later keeps them sliding",
        to_string(*w.by_connector), w.sliding_layers, w.bytes_per_token_hybrid, w.bytes_per_token_full,
        ratio);
  }
  return fmt::format(
      "--disable-hybrid-kv-cache-manager treats the {} sliding-window layers as full attention: KV per "
      "token grows from {} to {} B (x{:.2f})",
      w.sliding_layers, w.bytes_per_token_hybrid, w.bytes_per_token_full, ratio);
}

std::string word(const LmcachePerRank& w) {
  return fmt::format(
      "--kv-offloading-backend lmcache: LMCache sizes its CPU cache per rank, "
      "LMCACHE_MAX_LOCAL_CPU_SIZE={:.1f} "
      "(GiB = {} / {} ranks); newer vLLM leaves the size to LMCache's own setting, so set it there",
      w.per_rank_gib, w.total_gib, w.ranks);
}

std::string word(const TierBeyondHostDram& w) {
  return fmt::format(
      "--kv-offloading-size {} GiB exceeds the {:.0f} GiB of host DRAM this instance's nodes have: vLLM "
      "cannot pin it (give --host-memory if a node has more)",
      w.given_gib, w.host_gib);
}

std::string word(const TierBeyondCap& w) {
  return fmt::format(
      "--kv-offloading-size {} GiB exceeds the {:.0f} GiB cap ({:.0f}% of host DRAM for this instance's "
      "GPUs): the host may swap or the OOM killer may end the server",
      w.given_gib, w.cap_gib, w.dram_fraction * 100);
}

std::string word(const KvCacheMemoryTooLarge& w) {
  return fmt::format(
      "--kv-cache-memory {} plus weights, activations and graphs ({:.2f} GiB) exceed the GPU's {:.2f} GiB by "
      "{:.2f} GiB: vLLM would fail to allocate it",
      format_bytes_binary(w.kv_bytes), w.other_gib, w.total_gib, w.exceeds_gib);
}

std::string word(const RanksBeyondNode& w) {
  return fmt::format(
      "{} ranks exceed the {} GPUs of one {} node: the host DRAM cap and link figures are per node", w.ranks,
      w.gpus_per_node, w.hardware);
}

std::string word(const HostBackendLink& w) { return link_warning_text(w.link); }

std::string word(const TierRegionPinFails& w) {
  const auto& fix = release_fact(ReleaseChange::kChunkedRegistration);
  return fmt::format(
      "--kv-offloading-size {:g}: vLLM {} pins the tier's /dev/shm region in one cudaHostRegister call, "
      "which fails at 512 GiB or more whatever the host has free, and the workers do not start (a "
      "misleading CUDA out-of-memory error); vLLM {}.{} or newer registers it in chunks ({}), or keep the "
      "tier under 512 GiB",
      w.tier_gib, to_string(w.version), fix.from.major, fix.from.minor, fix.source);
}

std::string word(const DraftZeroesTierHits& w) {
  const auto& fix = release_fact(ReleaseChange::kDraftOffload);
  return fmt::format(
      "--draft-layers {} on a Mamba hybrid: vLLM {}'s OffloadingConnector takes every KV cache group for "
      "the drafter's, so the CPU tier stores blocks but serves no hits (the prefill is recomputed); vLLM "
      "{}.{} or newer serves them ({})",
      w.draft_layers, to_string(w.version), fix.from.major, fix.from.minor, fix.source);
}

std::string word(const WordedWarning& w) { return w.text; }  // an older document's, as written

}  // namespace

std::string sizing_warning_text(const SizingWarning& w) {
  return std::visit([](const auto& x) { return word(x); }, w);
}

}  // namespace kvb
