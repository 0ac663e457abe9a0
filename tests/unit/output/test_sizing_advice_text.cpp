// size's alternatives and notes are facts (size/sizing_advice.hpp) worded once
// (output/size/sizing_advice_text), for the text, the JSON and the simulator's refusal.
#include <gtest/gtest.h>

#include <string>

#include "output/size/sizing_advice_text.hpp"

namespace kvb {
namespace {

TEST(SizingAdviceText, TheSearchSaysWhatItTriedInOrder) {
  SearchTried t;
  t.too_small = {{.tp = 4, .pp = 1, .fp8 = false}, {.tp = 8, .pp = 1, .fp8 = false}};
  t.found = true;
  t.fits = {.tp = 8, .pp = 2, .fp8 = true};
  t.tokens = 131072;
  EXPECT_EQ(search_tried_text(t),
            "tried TP 4, TP 8 (too small); TP 8 x PP 2 fp8 fits one request of 131,072 tokens");
  t.found = false;
  EXPECT_EQ(search_tried_text(t),
            "tried TP 4, TP 8: none holds the weights and one request of 131,072 tokens");
  EXPECT_EQ(sizing_note_text(SearchNote{t}).rfind("configuration search: tried TP 4", 0), 0u);
}

TEST(SizingAdviceText, AConfigurationNamesItsFlagsGpusAndNodes) {
  // TP 8 x PP 2 on 8-GPU nodes: 16 GPUs, 2 nodes.
  EXPECT_EQ(
      configuration_flags_text({.tp = 8, .pp = 2, .fp8 = true, .gpus = 16, .nodes = 2, .hardware = "h100"}),
      "--tensor-parallel-size 8 --pipeline-parallel-size 2 --quantization fp8 (16 GPUs, 2 h100 nodes)");
  EXPECT_EQ(
      configuration_flags_text({.tp = 1, .pp = 1, .fp8 = false, .gpus = 1, .nodes = 1, .hardware = "b200"}),
      "--tensor-parallel-size 1 (1 GPU, one b200 node)");
}

TEST(SizingAdviceText, TheSimulatorsRefusalEndsWithTheAlternatives) {
  const WeightsDoNotFit e("x.yaml: the weights do not fit",
                          {ShorterContextFits{.max_model_len = 8192}, TpAtMostKvHeads{.kv_heads = 8}});
  EXPECT_EQ(
      weights_do_not_fit_text(e),
      "x.yaml: the weights do not fit; a shorter context fits: --max-model-len 8192; keep TP at or below the "
      "8 KV heads (--tensor-parallel-size 8) and scale out with --data-parallel-size, so no KV head is "
      "replicated");
}

}  // namespace
}  // namespace kvb
