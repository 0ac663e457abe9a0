#include "catalog/offload_support.hpp"

#include <array>

#include "catalog/vllm_releases.hpp"

namespace kvb {

namespace {

constexpr VllmVersion kOpen{};
constexpr VllmVersion kFirst{0, 11, 0};
// The release whose OffloadingConnector declares SupportsHMA, and whose vLLM keeps the hybrid
// manager on for a connector that supports it (its row in catalog/vllm_releases: constant data,
// initialised before this table).
const VllmVersion kHybridAware = release_fact(ReleaseChange::kHybridOffload).from;

// Each row's source, short enough to print. In full:
// - kBlog: the vLLM blog on the offloading connector (0.11); vllm/v1/kv_offload/cpu/spec.py: one CPU
//   block holds page_size x every KV cache tensor x world_size.
// - kNoHma: docs.vllm.ai v0.11.0 offloading_connector: OffloadingConnector(KVConnectorBase_V1), no
//   SupportsHMA; vllm-project/vllm PR #41847 (merged 2026-05-06): before it a KV connector turned the
//   hybrid KV cache manager off; ovg-project/kvcached PR #351: 0.16 to 0.20.x lack SupportsHMA, 0.21.0
//   has it. Mamba's failure message: vLLM's unify_hybrid_kv_cache_specs (REFERENCE.md's known failures).
// - kHma: vllm-project/vllm PRs #36610 and #39403 (per-group offload keys: (block hash, group)), #41847
//   (the hybrid manager kept for a SupportsHMA connector), #44599 (Mamba groups); at v0.28.0
//   kv_connector/v1/offloading_connector.py declares SupportsHMA and offloading/config.py asserts
//   --enable-prefix-caching for Mamba hybrids; issue #56871: every group's keys take slots of the
//   one CPU pool, so the tier's tokens count every group's bytes.
// - kRocmMla: docs.vultr.com/inference-cookbook/rocm/optimization/kv-cache-offloading (2026-03-17,
//   vllm/vllm-openai-rocm): "KV cache offloading only works with standard attention architectures
//   (GQA, MHA). MLA models are not supported" (DeepSeek V3.2 with the KeyError below, Kimi-K2.5).
// - kSparse: LMCache issue #5002 (vLLM 0.28): vLLM registers one KV cache per MLA layer and one per DSA
//   indexer layer with a connector; offloading/config.py's worker_kv_bytes_per_block sums every tensor.
constexpr const char* kBlogSource = "vLLM blog on the offloading connector; vllm/v1/kv_offload/cpu/spec.py";
constexpr const char* kNoHmaSource = "no SupportsHMA before vLLM 0.21: kvcached PR #351, vLLM PR #41847";
constexpr const char* kHmaSource = "vLLM PRs #39403, #41847, #44599; issue #56871";
constexpr const char* kRocmMlaSource = "Vultr's ROCm vLLM cookbook, KV cache offloading (2026-03-17)";
constexpr const char* kSparseSource =
    "LMCache issue #5002: vLLM registers the indexer caches with connectors";

using K = OffloadLayoutKind;
using S = OffloadStatus;

// Rows are searched in order: a ROCm row before the rows every platform shares.
const std::array<OffloadSupport, 9> kRows{{
    {K::kMla, S::kRefuses, kFirst, kOpen, true, "", "", kRocmMlaSource},
    {K::kSparseMla, S::kRefuses, kFirst, kOpen, true, "KeyError: 'model.layers.0.self_attn.indexer.k_cache'",
     "", kRocmMlaSource},
    {K::kFullAttention, S::kOffloadsAll, kFirst, kOpen, false, "", "", kBlogSource},
    {K::kMla, S::kOffloadsAll, kFirst, kOpen, false, "", "", kBlogSource},
    {K::kSparseMla, S::kOffloadsAll, kFirst, kOpen, false, "", "", kSparseSource},
    {K::kSlidingHybrid, S::kSlidingAsFull, kFirst, kHybridAware, false, "", "", kNoHmaSource},
    {K::kSlidingHybrid, S::kOffloadsPerGroup, kHybridAware, kOpen, false, "", "", kHmaSource},
    {K::kMambaHybrid, S::kRefuses, kFirst, kHybridAware, false,
     "Hybrid KV cache manager is disabled but failed to convert the KV cache specs to one unified type", "",
     kNoHmaSource},
    {K::kMambaHybrid, S::kOffloadsPerGroup, kHybridAware, kOpen, false, "", "--enable-prefix-caching",
     kHmaSource},
}};

bool in_range(const OffloadSupport& r, const VllmVersion& v) {
  const bool open = !(r.until < kOpen) && !(kOpen < r.until);
  return !(v < r.from) && (open || v < r.until);
}

}  // namespace

OffloadLayoutKind offload_layout_kind(const ModelSpec& m) {
  if (m.mamba_layers > 0) return K::kMambaHybrid;
  if (m.sliding_layers > 0) return K::kSlidingHybrid;
  if (m.attention == AttentionKind::kMla) return m.sparse_mla ? K::kSparseMla : K::kMla;
  return K::kFullAttention;
}

const OffloadSupport& offload_support(OffloadLayoutKind kind, GpuVendor vendor, const VllmVersion& v) {
  // A release newer than the table knows is read as the newest modelled one.
  const VllmVersion at = kNewestModelledVllm < v ? kNewestModelledVllm : v;
  for (const auto& r : kRows) {
    if (r.kind != kind || (r.amd_only && vendor != GpuVendor::kAmd)) continue;
    if (in_range(r, at)) return r;
  }
  return kRows[2];  // every kind has a row for every release; full attention's if a kind had none
}

std::string to_string(OffloadLayoutKind k) {
  switch (k) {
    case K::kFullAttention:
      return "full attention";
    case K::kMla:
      return "MLA";
    case K::kSparseMla:
      return "sparse MLA";
    case K::kSlidingHybrid:
      return "sliding-window hybrid";
    case K::kMambaHybrid:
      return "Mamba hybrid";
  }
  return "full attention";
}

}  // namespace kvb
