// The configuration search (issue 24 §2) against hand arithmetic on parameter counts: bf16 weights
// are 2 B per parameter, FP8 1 B, split over TP x PP ranks; an H100 offers 0.9 x 79.1 GiB to vLLM.
#include <gtest/gtest.h>

#include "core/units.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "size/configuration_search.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(ConfigurationSearch, ASmallModelStaysOnOneGpu) {
  auto in = test::inputs("llama-3.1-8b");
  in.max_model_len = 8192;
  const auto s = search_configuration(in);
  ASSERT_TRUE(s.found);  // 8e9 x 2 B = 15 GiB of 71 GiB
  EXPECT_EQ(s.found->inputs.kv.tp, 1);
  EXPECT_EQ(s.found->inputs.quantization, Quantization::kNone);
  EXPECT_EQ(search_tried_text(s.tried).find("tried"), std::string::npos)
      << search_tried_text(s.tried);  // nothing smaller failed first
}

TEST(ConfigurationSearch, Llama405bAt128kOnH100NeedsFp8AtTp8) {
  auto in = test::inputs("llama-3.1-405b");
  in.max_model_len = 131072;
  const auto s = search_configuration(in);
  ASSERT_TRUE(s.found) << search_tried_text(s.tried);
  // bf16: 405e9 x 2 B / 8 = 94 GiB per GPU > 71 GiB, so no TP within the node holds it; FP8 at TP 4:
  // 94 GiB again; FP8 at TP 8: 47 GiB, leaving room for one 128k request.
  EXPECT_EQ(s.found->inputs.kv.tp, 8);
  EXPECT_EQ(s.found->inputs.kv.pp, 1);
  EXPECT_EQ(s.found->inputs.quantization, Quantization::kFp8);
  EXPECT_TRUE(s.found->sizing.fits);
  EXPECT_NEAR(s.found->sizing.budget.weights_gib, 405e9 / 8 / kGiB, 405e9 / 8 / kGiB * 0.05);
  EXPECT_NE(search_tried_text(s.tried).find("TP 8, TP 1 fp8"), std::string::npos)
      << search_tried_text(s.tried);  // bf16 TP 8 tried and refused first
}

TEST(ConfigurationSearch, EachFoundConfigurationIsTheFirstThatFits) {
  // The property the order promises: the found configuration fits, and halving its ranks does not.
  for (const char* name : {"llama-3.1-70b", "qwen3-32b", "deepseek-v3", "qwen3-235b-a22b"}) {
    auto in = test::inputs(name);
    in.max_model_len = 32768;
    const auto s = search_configuration(in);
    ASSERT_TRUE(s.found) << name << ": " << search_tried_text(s.tried);
    EXPECT_TRUE(s.found->sizing.fits) << name;
    auto smaller = s.found->inputs;
    if (smaller.kv.pp > 1)
      smaller.kv.pp /= 2;
    else if (smaller.kv.tp > 1)
      smaller.kv.tp /= 2;
    else
      continue;
    EXPECT_FALSE(compute_sizing(smaller).fits) << name << " also fits with half the ranks";
  }
}

TEST(ConfigurationSearch, ANonFittingConfigurationNamesOneThatFits) {
  // 70.6e9 x 2 B = 131.5 GiB of bf16 weights on one 80 GB GPU. At TP 2: 65.7 GiB per GPU plus
  // 2.5 GiB of activations and 1.4 GiB of graphs leave 1.6 GiB of the 71.3 GiB, and one 32K request
  // needs 32768 x 80 layers x 2 x 4 heads x 128 x 2 B = 5.0 GiB per rank: TP 4 is the first that fits.
  auto in = test::inputs("llama-3.1-70b");
  in.max_model_len = 32768;
  const auto s = compute_sizing(in);
  ASSERT_FALSE(s.weights_fit);
  bool named = false;
  for (const auto& a : sizing_alternative_lines(s.alternatives))
    named |= a.find("--tensor-parallel-size 4 (4 GPUs, one h100 node) fits") == 0;
  EXPECT_TRUE(named);
  for (const auto& a : sizing_alternative_lines(s.alternatives))
    EXPECT_EQ(a.find("halve"), std::string::npos) << "a step that may still fail: " << a;
}
