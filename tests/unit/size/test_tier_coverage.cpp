// What vLLM's native CPU tier offloads per attention kind, release and platform
// (catalog/offload_support), and what size says of it, against hand calculations.
#include <gtest/gtest.h>

#include <variant>

#include "catalog/offload_support.hpp"
#include "core/units.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "size/sizing_inputs.hpp"
#include "size/vllm_command.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

template <class T, class V>
const T* find_fact(const std::vector<V>& all) {
  for (const auto& x : all)
    if (const auto* p = std::get_if<T>(&x)) return p;
  return nullptr;
}

TEST(OffloadSupport, EachKindMapsToItsRowPerReleaseAndPlatform) {
  using K = OffloadLayoutKind;
  using S = OffloadStatus;
  const VllmVersion v20{0, 20, 0}, v21{0, 21, 0}, v27{0, 27, 0}, v40{0, 40, 0};
  EXPECT_EQ(offload_layout_kind(test::model("llama-3.1-8b")), K::kFullAttention);
  EXPECT_EQ(offload_layout_kind(test::model("deepseek-v3")), K::kMla);
  EXPECT_EQ(offload_layout_kind(test::model("deepseek-v3.2")), K::kSparseMla);
  EXPECT_EQ(offload_layout_kind(test::model("gpt-oss-120b")), K::kSlidingHybrid);
  EXPECT_EQ(offload_layout_kind(test::model("nemotron-3-nano-30b-a3b")), K::kMambaHybrid);
  // The hybrid-aware connector arrives in 0.21: before it sliding layers go full, Mamba refuses.
  EXPECT_EQ(offload_support(K::kSlidingHybrid, GpuVendor::kNvidia, v20).status, S::kSlidingAsFull);
  EXPECT_EQ(offload_support(K::kSlidingHybrid, GpuVendor::kNvidia, v21).status, S::kOffloadsPerGroup);
  EXPECT_EQ(offload_support(K::kMambaHybrid, GpuVendor::kAmd, v20).status, S::kRefuses);
  EXPECT_EQ(offload_support(K::kMambaHybrid, GpuVendor::kNvidia, v27).status, S::kOffloadsPerGroup);
  EXPECT_EQ(std::string(offload_support(K::kMambaHybrid, GpuVendor::kNvidia, v27).needs),
            "--enable-prefix-caching");
  // ROCm refuses MLA, dense and sparse, in every release; CUDA offloads both.
  EXPECT_EQ(offload_support(K::kMla, GpuVendor::kAmd, v27).status, S::kRefuses);
  EXPECT_EQ(offload_support(K::kSparseMla, GpuVendor::kAmd, v20).status, S::kRefuses);
  EXPECT_NE(std::string(offload_support(K::kSparseMla, GpuVendor::kAmd, v27).failure).find("indexer.k_cache"),
            std::string::npos);
  EXPECT_EQ(offload_support(K::kMla, GpuVendor::kNvidia, v27).status, S::kOffloadsAll);
  EXPECT_EQ(offload_support(K::kFullAttention, GpuVendor::kAmd, v20).status, S::kOffloadsAll);
  // A release past the table reads as the newest modelled one.
  EXPECT_EQ(offload_support(K::kMambaHybrid, GpuVendor::kNvidia, v40).status, S::kOffloadsPerGroup);
}

TEST(TierCoverage, AHybridTiersCapacityCountsEveryGroupsBytes) {
  // gpt-oss-120b on one H100, vLLM 0.27: 18 full + 18 sliding layers, 8 KV heads x 64 x 2 (K, V) x 2 B
  // = 2,048 B per token per layer; two groups of 18 layer slots. vLLM issue #56871: each (block, group)
  // key takes its own slot, so one 16-token block of every group = 36 x 2,048 x 16 = 1,179,648 B,
  // 73,728 B per token, not the 36,864 B of the full-attention layers alone.
  auto in = test::inputs("gpt-oss-120b", "h100");
  in.max_model_len = 32768;
  in.kv_offloading_size_gib = 10;
  const auto s = compute_sizing(in);
  ASSERT_TRUE(s.offload);
  EXPECT_EQ(s.offload->cpu_block_bytes, 36LL * 2048 * 16);
  // floor(10 x 2^30 / 1,179,648) = floor(9,102.2) = 9,102 blocks = 145,632 tokens.
  EXPECT_EQ(s.offload->given_num_cpu_blocks, 9102);
  EXPECT_EQ(s.offload->given_cpu_tokens, 145'632);
  const auto* n = find_fact<TierCoverageNote>(s.notes);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->status, OffloadStatus::kOffloadsPerGroup);
  EXPECT_EQ(n->full_groups, 1);
  EXPECT_EQ(n->sliding_groups, 1);
  EXPECT_EQ(n->group_layers, 18);
  EXPECT_EQ(n->tier_bytes_per_token, 73'728);
  EXPECT_EQ(n->context_bytes_per_token, 36'864);
  const auto words = sizing_note_text(SizingNote{*n});
  EXPECT_NE(
      words.find("each of the 2 KV cache groups (1 full-attention, 1 sliding-window; 18 layer slots each)"),
      std::string::npos);
  EXPECT_NE(words.find("73,728 B per token per rank, of which 36,864 B"), std::string::npos);
}

TEST(TierCoverage, BeforeTheHybridAwareConnectorSlidingLayersAreHeldAsFull) {
  // vLLM 0.20 turns the hybrid manager off for the connector: the GPU holds 36 full layers,
  // 73,728 B per token per rank (twice the 36,864 of 18 full layers), and the warning says why.
  ServeSettings serve;
  serve.vllm_version = VllmVersion{0, 20, 0};
  serve.tensor_parallel_size = 1;
  serve.tensor_parallel_auto = false;
  serve.max_model_len = 32768;
  const auto in = make_sizing_inputs(test::model("gpt-oss-120b"), resolve_hardware("h100"), serve);
  EXPECT_FALSE(in.kv.hybrid_manager);
  EXPECT_TRUE(in.hybrid_off_by_connector);
  const auto s = compute_sizing(in);
  EXPECT_EQ(s.layout.kv_bytes_per_token(), 73'728);
  const auto* w = find_fact<SlidingAsFull>(s.warnings);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->bytes_per_token_hybrid, 36'864);
  EXPECT_EQ(w->bytes_per_token_full, 73'728);
  EXPECT_NE(
      sizing_warning_text(SizingWarning{*w}).find("vLLM 0.20.0's OffloadingConnector has no hybrid support"),
      std::string::npos);
  // From 0.21 the manager stays on.
  serve.vllm_version = VllmVersion{0, 21, 0};
  EXPECT_TRUE(
      make_sizing_inputs(test::model("gpt-oss-120b"), resolve_hardware("h100"), serve).kv.hybrid_manager);
}

TEST(TierCoverage, AMambaHybridBeforeTheHybridAwareConnectorIsRefused) {
  auto in = test::inputs("nemotron-3-nano-30b-a3b", "h100");
  in.vllm_version = VllmVersion{0, 20, 0};
  const auto s = compute_sizing(in);
  const auto* w = find_fact<TierRefused>(s.warnings);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(refuses_start(SizingWarning{*w}));
  EXPECT_EQ(find_fact<TierCoverageNote>(s.notes), nullptr);
  EXPECT_NE(sizing_warning_text(SizingWarning{*w}).find("failed to convert the KV cache specs"),
            std::string::npos);
  // 0.27: no refusal; the note counts the Mamba groups' slots in the tier's bytes per token.
  in.vllm_version = VllmVersion{0, 27, 0};
  const auto later = compute_sizing(in);
  EXPECT_EQ(find_fact<TierRefused>(later.warnings), nullptr);
  const auto* n = find_fact<TierCoverageNote>(later.notes);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->mamba_groups + n->full_groups, later.layout.num_groups);
  EXPECT_EQ(n->tier_bytes_per_token, later.layout.page_bytes * later.layout.group_size *
                                         later.layout.num_groups / later.layout.block_size);
  // The command asks for what the release's tier needs for a Mamba hybrid; a GQA model's does not.
  EXPECT_NE(vllm_commands(later, in).serve.find("--enable-prefix-caching"), std::string::npos);
  const auto gqa = test::inputs("llama-3.1-8b", "h100");
  EXPECT_EQ(vllm_commands(compute_sizing(gqa), gqa).serve.find("--enable-prefix-caching"), std::string::npos);
}

TEST(TierCoverage, SparseMlaOffloadsTheIndexerOnCudaAndIsRefusedOnRocm) {
  // DeepSeek-V3.2 at TP 8 with fp8_ds_mla: 61 layers x (656 latent + 132 indexer) = 48,068 B per token,
  // 61 x 132 = 8,052 B of it the indexer's K cache.
  auto in = test::inputs("deepseek-v3.2", "h200", 8);
  in.kv.kv_cache_dtype = "fp8";
  in.max_model_len = 32768;
  const auto s = compute_sizing(in);
  const auto* n = find_fact<TierCoverageNote>(s.notes);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->tier_bytes_per_token, 48'068);
  EXPECT_EQ(n->indexer_bytes_per_token, 8'052);
  auto amd = test::inputs("deepseek-v3.2", "mi300x", 8);
  amd.max_model_len = 32768;
  EXPECT_NE(find_fact<TierRefused>(compute_sizing(amd).warnings), nullptr);
}

}  // namespace
}  // namespace kvb
