// quantization_config read from its own fields (issue 59 row 21): each format's bits per weight
// parameter against a hand calculation from the format's layout, and an unknown method refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/hardware_spec.hpp"
#include "catalog/hf_config.hpp"
#include "catalog/hf_quantization.hpp"
#include "catalog/weight_format.hpp"
#include "core/errors.hpp"
#include "perf/weight_rules.hpp"

using namespace kvb;
using Json = nlohmann::json;

namespace {

std::string dtype_of(const Json& q) {
  std::vector<std::string> w;
  return weight_dtype_from_quantization(q, "m.json", w);
}

std::string refusal(const Json& q) {
  try {
    (void)dtype_of(q);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

// An 8B Llama-3.1 shape: 32 layers, hidden 4096, 32 heads, 8 KV heads, FFN 14,336, vocab 128,256.
Json llama_8b(const Json& quantization_config) {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"num_hidden_layers", 32},
          {"hidden_size", 4096},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"max_position_embeddings", 8192},
          {"vocab_size", 128256},
          {"intermediate_size", 14336},
          {"torch_dtype", "bfloat16"},
          {"quantization_config", quantization_config}};
}

const Json kW4A16 = {{"quant_method", "compressed-tensors"},
                     {"format", "pack-quantized"},
                     {"ignore", {"lm_head"}},
                     {"config_groups",
                      {{"group_0",
                        {{"targets", {"Linear"}},
                         {"input_activations", nullptr},
                         {"weights",
                          {{"num_bits", 4},
                           {"type", "int"},
                           {"symmetric", true},
                           {"strategy", "group"},
                           {"group_size", 128}}}}}}}};

}  // namespace

TEST(WeightFormat, BitsPerParameterByHand) {
  EXPECT_DOUBLE_EQ(weight_format("bf16").bits_per_param, 16);
  EXPECT_DOUBLE_EQ(weight_format("fp8").bits_per_param, 8);
  EXPECT_DOUBLE_EQ(weight_format("nvfp4").bits_per_param, 4 + 8.0 / 16);        // E2M1 + an E4M3 scale per 16
  EXPECT_DOUBLE_EQ(weight_format("mxfp4").bits_per_param, 4 + 8.0 / 32);        // E2M1 + an E8M0 scale per 32
  EXPECT_DOUBLE_EQ(weight_format("int4-g128").bits_per_param, 4 + 16.0 / 128);  // a bf16 scale per 128
  EXPECT_DOUBLE_EQ(weight_format("int8").bits_per_param, 8);                    // per-channel scales
  EXPECT_DOUBLE_EQ(weight_format("gptq").bits_per_param, 4 + (16.0 + 4) / 128);  // scale + 4-bit zero
  EXPECT_DOUBLE_EQ(weight_format("gptq-int8-g128").bits_per_param, 8 + (16.0 + 8) / 128);
  EXPECT_DOUBLE_EQ(weight_format("awq-int4-g64").bits_per_param, 4 + (16.0 + 4) / 64);
  EXPECT_DOUBLE_EQ(weight_format("bnb-int8").bits_per_param, 8);
  EXPECT_DOUBLE_EQ(weight_format("bnb-nf4").bits_per_param, 4 + 32.0 / 64);  // an fp32 absmax per 64
  EXPECT_DOUBLE_EQ(weight_format("bnb-nf4-dq").bits_per_param, 4 + 8.0 / 64 + 32.0 / (64 * 256));
  EXPECT_DOUBLE_EQ(weight_bytes_per_param("int4-g32"), (4 + 16.0 / 32) / 8);
  for (const char* bad : {"int1", "int9", "int4-g0", "int4-g", "gptq-fp8", "bnb-int4", "w4a16", ""})
    EXPECT_THROW((void)weight_format(bad), UsageError) << bad;
}

TEST(HfQuantization, EachMethodFromItsFields) {
  EXPECT_EQ(dtype_of(kW4A16), "int4-g128");
  auto w8 = kW4A16;
  w8["config_groups"]["group_0"]["weights"]["num_bits"] = 8;
  w8["config_groups"]["group_0"]["weights"]["strategy"] = "channel";
  w8["config_groups"]["group_0"]["weights"].erase("group_size");
  EXPECT_EQ(dtype_of(w8), "int8");
  auto nvfp4 = kW4A16;
  nvfp4["format"] = "nvfp4-pack-quantized";
  nvfp4["config_groups"]["group_0"]["weights"] = {
      {"num_bits", 4}, {"type", "float"}, {"strategy", "tensor_group"}, {"group_size", 16}};
  EXPECT_EQ(dtype_of(nvfp4), "nvfp4");
  EXPECT_EQ(dtype_of({{"quant_method", "compressed-tensors"}, {"format", "float-quantized"}}), "fp8");
  // ModelOpt: quant_algo at the top (config.json) or under quantization (hf_quant_config.json).
  EXPECT_EQ(dtype_of({{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}, {"group_size", 16}}), "nvfp4");
  EXPECT_EQ(dtype_of({{"quant_method", "modelopt"}, {"quantization", {{"quant_algo", "FP8"}}}}), "fp8");
  EXPECT_EQ(dtype_of({{"quant_method", "gptq"}, {"bits", 8}, {"group_size", 128}, {"desc_act", false}}),
            "gptq-int8-g128");
  EXPECT_EQ(dtype_of({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}}), "gptq");
  EXPECT_EQ(dtype_of({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", -1}}), "gptq-int4");
  EXPECT_EQ(dtype_of({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}}), "awq");
  EXPECT_EQ(dtype_of({{"quant_method", "awq"}, {"w_bit", 4}, {"q_group_size", 64}}), "awq-int4-g64");
  EXPECT_EQ(dtype_of({{"quant_method", "bitsandbytes"}, {"_load_in_8bit", true}, {"load_in_8bit", true}}),
            "bnb-int8");
  EXPECT_EQ(dtype_of({{"quant_method", "bitsandbytes"},
                      {"load_in_4bit", true},
                      {"bnb_4bit_quant_type", "nf4"},
                      {"bnb_4bit_use_double_quant", true}}),
            "bnb-nf4-dq");
  EXPECT_EQ(dtype_of({{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"lm_head"}}}), "fp8");
}

TEST(HfQuantization, UnknownOrUnreadableIsRefusedNamingTheField) {
  EXPECT_NE(refusal({{"quant_method", "hqq"}}).find("m.json: quantization_config.quant_method is 'hqq'"),
            std::string::npos);
  EXPECT_NE(refusal({{"quant_method", "hqq"}}).find("compressed-tensors, modelopt, gptq"), std::string::npos);
  EXPECT_NE(refusal({{"bits", 4}}).find("quant_method is missing"), std::string::npos);
  EXPECT_NE(refusal({{"quant_method", 5}}).find("quant_method is 5"), std::string::npos);
  EXPECT_NE(refusal({{"quant_method", "gptq"}, {"bits", 5}}).find("quantization_config.bits is 5"),
            std::string::npos);
  EXPECT_NE(refusal({{"quant_method", "awq"}, {"bits", 8}, {"group_size", 128}}).find("bits is 8"),
            std::string::npos);
  EXPECT_NE(
      refusal({{"quant_method", "modelopt"}, {"quant_algo", "W4A8_AWQ"}}).find("quant_algo is 'w4a8_awq'"),
      std::string::npos);
  auto fp6 = kW4A16;
  fp6["config_groups"]["group_0"]["weights"]["type"] = "float";
  fp6["config_groups"]["group_0"]["weights"]["num_bits"] = 6;
  EXPECT_NE(refusal(fp6).find("config_groups.group_0.weights.num_bits is 6"), std::string::npos)
      << refusal(fp6);
  EXPECT_NE(refusal(Json::array()).find("quantization_config is []"), std::string::npos);
}

TEST(HfQuantization, MixedGroupsTakeTheWidestAndSaySo) {
  auto mixed = kW4A16;
  mixed["config_groups"]["group_1"] = {
      {"targets", {"re:.*down_proj"}},
      {"weights", {{"num_bits", 8}, {"type", "int"}, {"strategy", "channel"}}}};
  std::vector<std::string> w;
  EXPECT_EQ(weight_dtype_from_quantization(mixed, "m.json", w), "int8");
  ASSERT_EQ(w.size(), 1U);
  EXPECT_NE(w[0].find("mixes int4-g128, int8"), std::string::npos) << w[0];
}

// The weight footprint of an 8B Llama by hand: 32 layers of attention (4096 x 128 x (2 x 32 + 2 x 8))
// and SwiGLU MLP (3 x 4096 x 14,336) quantized; the embedding and the untied LM head (2 x 128,256 x
// 4096) 16-bit. Checkpoint check: RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16 (symmetric
// INT4 per group of 128, "only the weights of the linear operators within transformers blocks are
// quantized", its README) at 4.125 bits: 5.70 GB.
TEST(HfQuantization, WeightsOfAn8BModelByHand) {
  const double linear = 32.0 * (4096.0 * 128 * (2 * 32 + 2 * 8) + 3.0 * 4096 * 14336);
  const double embeddings = 2.0 * 128256 * 4096;
  const std::vector<std::pair<Json, double>> cases = {
      {kW4A16, 4 + 16.0 / 128},
      {{{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}, {"group_size", 16}}, 4.5},
      {{{"quant_method", "gptq"}, {"bits", 8}, {"group_size", 128}}, 8 + 24.0 / 128},
      {{{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}}, 8},
      {{{"quant_method", "fbgemm_fp8"}, {"modules_to_not_convert", {"lm_head"}}}, 8}};
  for (const auto& [q, bits] : cases) {
    std::vector<std::string> w;
    const auto m = model_from_hf_config(llama_8b(q).dump(), "m.json", w);
    EXPECT_NEAR(weight_bytes_per_rank(m, m.weight_dtype, 1), linear * bits / 8 + embeddings * 2, 1e3)
        << q.dump();
  }
  std::vector<std::string> w;
  const auto w4a16 = model_from_hf_config(llama_8b(kW4A16).dump(), "m.json", w);
  EXPECT_NEAR(weight_bytes_per_rank(w4a16, w4a16.weight_dtype, 1) / 1e9, 5.70, 0.01);
}

// How each new format computes (perf/weight_rules.cpp): NVFP4 on FP4 tensor cores where the GPU has
// them (B200's 9,000 TFLOP/s), weight-only NVFP4 Marlin on Hopper; compressed-tensors integers
// through Machete on Hopper as GPTQ; bitsandbytes' own kernels not modelled.
TEST(HfQuantization, KernelsPerFormat) {
  const auto h100 = resolve_hardware("h100");
  const auto b200 = resolve_hardware("b200");
  EXPECT_EQ(weight_gemm(b200, "nvfp4").kernel, GemmKernel::kNative);
  EXPECT_DOUBLE_EQ(weight_gemm(b200, "nvfp4").peak_tflops, b200.fp4_tflops);
  EXPECT_EQ(weight_gemm(h100, "nvfp4").kernel, GemmKernel::kMarlin);
  EXPECT_DOUBLE_EQ(weight_gemm(h100, "nvfp4").peak_tflops, h100.bf16_tflops);
  EXPECT_EQ(weight_gemm(h100, "int4-g128").kernel, GemmKernel::kMachete);
  EXPECT_EQ(weight_gemm(h100, "gptq-int8-g128").kernel, GemmKernel::kMachete);
  EXPECT_EQ(weight_gemm(h100, "awq-int4-g64").kernel, GemmKernel::kMarlin);
  EXPECT_FALSE(weight_gemm(h100, "bnb-int8").dequant_known);
  EXPECT_TRUE(weight_gemm(h100, "gptq").dequant_known);
}

TEST(HfQuantization, AQuantizedLmHeadIsSaid) {
  auto no_ignore = kW4A16;
  no_ignore["ignore"] = Json::array();
  std::vector<std::string> w;
  EXPECT_EQ(weight_dtype_from_quantization(no_ignore, "m.json", w), "int4-g128");
  ASSERT_EQ(w.size(), 1U);
  EXPECT_NE(w[0].find("lm_head"), std::string::npos) << w[0];
  w.clear();
  (void)weight_dtype_from_quantization(kW4A16, "m.json", w);
  EXPECT_TRUE(w.empty());
}
