// A sizing's warnings are facts with their numbers; output's sizing_warning_text words each once (text and
// JSON).
#include <gtest/gtest.h>

#include <variant>

#include "output/size/sizing_advice_text.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "size/sizing_engine.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

TEST(SizingWarnings, AContextPastTheTrainedLengthIsAFactThatRefusesStart) {
  auto in = test::inputs("llama-3.1-8b", "h100");
  in.max_model_len = 200'000;  // Llama-3.1-8B was trained to 131,072
  const auto s = compute_sizing(in);
  const ContextBeyondTrained* w = nullptr;
  for (const auto& x : s.warnings)
    if (const auto* p = std::get_if<ContextBeyondTrained>(&x)) w = p;
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->max_model_len, 200'000);
  EXPECT_EQ(w->max_position_embeddings, 131'072);
  EXPECT_TRUE(refuses_start(SizingWarning{*w}));
  EXPECT_EQ(sizing_warning_text(SizingWarning{*w}).rfind("--max-model-len 200000 exceeds llama-3.1-8b's", 0),
            0u);
}

TEST(SizingWarnings, TheModelCardsContextExtensionIsNamedOnlyPastTheTrainedLength) {
  // Qwen3-8B: trained to 40,960; its card extends it with YaRN to 131,072.
  const auto mentions_yarn = [](const Sizing& s) {
    for (const auto& w : s.warnings)
      if (sizing_warning_text(w).find("YaRN") != std::string::npos) return true;
    for (const auto& n : s.notes)
      if (sizing_note_text(n).find("YaRN") != std::string::npos) return true;
    return false;
  };
  auto in = test::inputs("qwen3-8b", "h100");
  in.max_model_len = 32'768;
  EXPECT_FALSE(mentions_yarn(compute_sizing(in)));
  in.max_model_len = 131'072;
  const auto s = compute_sizing(in);
  EXPECT_TRUE(mentions_yarn(s));
  int yarn = 0;
  for (const auto& w : s.warnings) yarn += sizing_warning_text(w).find("YaRN") != std::string::npos ? 1 : 0;
  EXPECT_EQ(yarn, 1);  // said once, with the refusal it explains
}

TEST(SizingWarnings, EachKindIsWordedFromItsNumbers) {
  // 4 sliding layers of 2 full: 8,192 B per token as hybrid, 12,288 B as full attention = x1.50.
  EXPECT_NE(sizing_warning_text(SlidingAsFull{4, 8192, 12288}).find("grows from 8192 to 12288 B (x1.50)"),
            std::string::npos);
  EXPECT_NE(sizing_warning_text(LmcachePerRank{70, 280, 4})
                .find("LMCACHE_MAX_LOCAL_CPU_SIZE=70.0 (GiB = 280 / 4 ranks)"),
            std::string::npos);
  EXPECT_NE(
      sizing_warning_text(TierBeyondCap{900, 715, 0.7}).find("exceeds the 715 GiB cap (70% of host DRAM"),
      std::string::npos);
  EXPECT_NE(
      sizing_warning_text(RanksBeyondNode{16, 8, "h100"}).find("16 ranks exceed the 8 GPUs of one h100 node"),
      std::string::npos);
  LinkProfile host;
  host.origin.figures = LinkFigures::kFitted;
  host.origin.file = "--link-profile 'host.json'";
  host.origin.host_backend = true;
  EXPECT_EQ(sizing_warning_text(HostBackendLink{host}),
            "--link-profile 'host.json' was measured by the host backend: its figures are host-memory "
            "copies, not a "
            "GPU link; expected a kvbench dma result from a GPU");
  EXPECT_FALSE(refuses_start(RanksBeyondNode{16, 8, "h100"}));
}

}  // namespace
}  // namespace kvb
