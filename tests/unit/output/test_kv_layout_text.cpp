// The KV layout's facts and their one wording (output/size/kv_layout_text), against hand calculations.
#include <gtest/gtest.h>

#include <string>

#include "output/size/kv_layout_text.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

KvLayout layout(const std::string& name, int tp, const std::string& hw = "h100") {
  KvSettings s;
  s.tp = tp;
  return compute_kv_layout(test::model(name), resolve_hardware(hw), s);
}

TEST(KvLayoutText, GqaDerivationNamesEveryFactor) {
  // Llama-3.1-8B at TP 2: 8 KV heads // 2 = 4 per rank; 2 x 4 x 128 x 2 B = 2,048 B per layer.
  const auto l = layout("llama-3.1-8b", 2);
  ASSERT_EQ(l.derivation.size(), 1u);
  const auto& step = std::get<KvHeadsStep>(l.derivation.front());
  EXPECT_EQ(step.bytes, 2 * 4 * 128 * 2);
  EXPECT_EQ(kv_derivation_lines(l).front(),
            "GQA: 2 (K,V) x 4 KV heads/rank (max(1, 8 // TP 2)) x head_dim 128 x 2 B = 2048 B per layer");
  EXPECT_EQ(l.replication.cause, ReplicationCause::kNone);
  EXPECT_EQ(block_size_reason_text(l), "vLLM's default on CUDA and ROCm");
}

TEST(KvLayoutText, ReplicationSaysHowManyRanksHoldEachHead) {
  // Qwen3-235B: 4 KV heads at TP 8, so each head sits on 8 / 4 = 2 ranks.
  const auto l = layout("qwen3-235b", 8);
  EXPECT_EQ(l.replication.cause, ReplicationCause::kFewKvHeads);
  EXPECT_EQ(replication_text(l.replication), "4 KV heads < TP 8: each head is replicated on 2 ranks");
}

TEST(KvLayoutText, MlaIsOneLatentReplicatedWithTheBackendsBlock) {
  // DeepSeek-V3: (512 + 64) x 2 B = 1,152 B per layer; FlashMLA's 64-token blocks on Hopper.
  const auto l = layout("deepseek-v3", 8);
  EXPECT_EQ(kv_derivation_lines(l).front(),
            "MLA: (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 1152 B per layer (no K/V pair)");
  EXPECT_EQ(replication_text(l.replication),
            "MLA keeps one latent per token, replicated on each of the 8 TP ranks");
  EXPECT_NE(block_size_reason_text(l).find("uses 64-token blocks"), std::string::npos)
      << block_size_reason_text(l);
}

}  // namespace
}  // namespace kvb
