// Per-token KV arithmetic against hand calculations (vllm/v1/kv_cache_interface.py).
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "size/kv_layout.hpp"
#include "test_helpers.hpp"

using namespace kvb;
using kvb::test::model;

namespace {
KvLayout layout(const std::string& name, KvSettings s = {}, const std::string& hw = "h100") {
  return compute_kv_layout(model(name), resolve_hardware(hw), s);
}
}  // namespace

TEST(KvLayout, GqaIsTwoTimesHeadsTimesHeadDimTimesDtype) {
  // Llama-3.1-8B: 32 layers x 2 x 8 x 128 x 2 B.
  EXPECT_EQ(layout("llama-3.1-8b").kv_bytes_per_token(), 32 * 2 * 8 * 128 * 2);
  KvSettings tp2;
  tp2.tp = 2;
  EXPECT_EQ(layout("llama-3.1-8b", tp2).kv_bytes_per_token(), 32 * 2 * 4 * 128 * 2);
  KvSettings fp8;
  fp8.kv_cache_dtype = "fp8";
  EXPECT_EQ(layout("llama-3.1-8b", fp8).kv_bytes_per_token(), 32 * 2 * 8 * 128 * 1);
}

TEST(KvLayout, KvHeadsBelowTpAreReplicated) {
  // Qwen3-235B has 4 KV heads: at TP 8 each rank still holds max(1, 4 // 8) = 1 head.
  KvSettings s;
  s.tp = 8;
  const auto l = layout("qwen3-235b", s);
  EXPECT_EQ(l.kv_heads_per_rank, 1);
  EXPECT_EQ(l.kv_bytes_per_token(), 94 * 2 * 1 * 128 * 2);
  EXPECT_TRUE(l.replicated);
  s.tp = 4;
  EXPECT_FALSE(layout("qwen3-235b", s).replicated);
}

TEST(KvLayout, MlaIsLatentPlusRopeOnEveryRank) {
  // DeepSeek-V3: (512 + 64) x 2 B x 61 layers, no factor 2, the same at any TP.
  for (int tp : {1, 8}) {
    KvSettings s;
    s.tp = tp;
    const auto l = layout("deepseek-v3", s);
    EXPECT_EQ(l.kv_bytes_per_token(), 61 * 576 * 2);
    EXPECT_EQ(l.replicated, tp > 1);
    EXPECT_EQ(l.block_size, 64);  // FlashMLA on Hopper
  }
  EXPECT_EQ(layout("deepseek-v3", {}, "b200").block_size, 128);  // CUTLASS MLA on Blackwell
}

TEST(KvLayout, SparseMlaWithFp8UsesDsMlaFormatAndIndexer) {
  KvSettings s;
  s.kv_cache_dtype = "fp8";
  const auto l = layout("deepseek-v3.2", s);
  // 656 = 512 fp8 + 4 x 4 B scales + 64 x 2 B RoPE; indexer 128 + 4 = 132.
  EXPECT_EQ(l.kv_bytes_per_token(), 61 * (656 + 132));
  EXPECT_EQ(l.kv_bytes_per_token(), 48068);
  EXPECT_EQ(l.kv_dtype, "fp8_ds_mla");
  EXPECT_EQ(l.block_size, 64);
  KvSettings bad;
  bad.kv_cache_dtype = "fp8_ds_mla";
  EXPECT_THROW((void)layout("deepseek-v3", bad), UsageError);
  EXPECT_THROW((void)layout("llama-3.1-8b", bad), UsageError);  // GQA: no backend takes it
}

TEST(KvLayout, SlidingWindowCountsOnlyFullLayersWhenHybridManagerOn) {
  const auto on = layout("gpt-oss-120b");
  EXPECT_EQ(on.kv_bytes_per_token(), 18 * 2 * 8 * 64 * 2);  // 36,864 B
  EXPECT_EQ(on.num_groups, 2);
  EXPECT_EQ(on.group_size, 18);
  KvSettings off;
  off.hybrid_manager = false;
  const auto full = layout("gpt-oss-120b", off);
  EXPECT_EQ(full.kv_bytes_per_token(), 2 * on.kv_bytes_per_token());  // doubles
  EXPECT_TRUE(full.uniform);
}

TEST(KvLayout, SlidingLayersHoldWindowPlusStepBlocks) {
  const auto l = layout("gpt-oss-120b");
  // full: cdiv(131072, 16) = 8192; sliding: cdiv(min(128 - 1 + 8192, 131072), 16) + 1 = 521.
  EXPECT_EQ(blocks_per_request(l, 131072, 8192), 8192 + 521);
  // A request shorter than the window: cdiv(100, 16) + 1 = 8 sliding blocks.
  EXPECT_EQ(blocks_per_request(l, 100, 8192), 7 + 8);
}

TEST(KvLayout, MambaStateRaisesAttentionBlockSize) {
  const auto l = layout("nemotron-3-nano-30b-a3b");
  // 6 attention layers x 2 x 2 heads x 128 x 2 B.
  EXPECT_EQ(l.kv_bytes_per_token(), 6 * 1024);
  // Mamba2 state per layer: conv (64*64 + 2*8*128) x (4-1) + ssm 64 x 64 x 128, x 2 B.
  const std::int64_t state = ((64 * 64 + 2 * 8 * 128) * 3 + 64 * 64 * 128) * 2;
  EXPECT_EQ(state, 1'085'440);
  // Attention page must hold one state: cdiv(1,085,440, 1024) = 1060 -> 1072 (16-token steps).
  EXPECT_EQ(l.block_size, 1072);
  EXPECT_GE(l.page_bytes, state);
  // 23 Mamba layers in groups of 6 -> 4 groups, plus one attention group.
  EXPECT_EQ(l.group_size, 6);
  EXPECT_EQ(l.num_groups, 5);
  EXPECT_EQ(blocks_per_request(l, 1072 * 3, 8192), 3 + 4);
  KvSettings off;
  off.hybrid_manager = false;
  EXPECT_THROW((void)layout("nemotron-3-nano-30b-a3b", off), UsageError);
}

TEST(KvLayout, DraftLayersAddKv) {
  // Llama-3.1-8B + EAGLE = 33 KV layers (the draft model's layer holds KV too).
  KvSettings s;
  s.draft_layers = 1;
  EXPECT_EQ(layout("llama-3.1-8b", s).kv_bytes_per_token(), 33 * 4096);
}

TEST(KvLayout, PipelineStagesSplitLayers) {
  KvSettings s;
  s.pp = 2;
  EXPECT_EQ(layout("llama-3.1-8b", s).kv_bytes_per_token(), 16 * 4096);
  s.pp = 3;  // 32 layers over 3 stages: the busiest holds 11
  EXPECT_EQ(layout("llama-3.1-8b", s).kv_bytes_per_token(), 11 * 4096);
}

TEST(KvLayout, ImpossibleSettingsAreUsageErrors) {
  KvSettings s;
  s.tp = 3;  // 32 heads
  EXPECT_THROW((void)layout("llama-3.1-8b", s), UsageError);
  KvSettings b;
  b.block_size = 17;
  EXPECT_THROW((void)layout("llama-3.1-8b", b), UsageError);
  KvSettings d;
  d.kv_cache_dtype = "int3";
  EXPECT_THROW((void)layout("llama-3.1-8b", d), UsageError);
}
