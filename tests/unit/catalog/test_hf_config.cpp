// Reading Hugging Face config.json files: the KV figures must equal the hand calculations.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catalog/hf_config.hpp"
#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "size/kv_layout.hpp"
#include "test_paths.hpp"

using namespace kvb;

namespace {
std::string data(const std::string& name) { return std::string(KVBENCH_TEST_DATA) + "/" + name; }

ModelSpec load(const std::string& name, std::vector<std::string>& warnings) {
  return resolve_model(data(name), warnings);
}

std::int64_t kv_per_token(const ModelSpec& m) {
  return compute_kv_layout(m, resolve_hardware("h100"), KvSettings{}).kv_bytes_per_token();
}
}  // namespace

TEST(HfConfig, Qwen3_14B) {
  std::vector<std::string> w;
  const auto m = load("qwen3-14b.config.json", w);
  EXPECT_EQ(m.num_hidden_layers, 40);
  EXPECT_EQ(m.sliding_layers, 0);  // use_sliding_window false, sliding_window null
  EXPECT_EQ(kv_per_token(m), 40 * 2 * 8 * 128 * 2);
  // Parameters from the shapes: 14.8B published (embeddings untied).
  EXPECT_NEAR(m.params_total_b, 14.8, 0.3);
  EXPECT_TRUE(w.empty()) << w.front();
}

TEST(HfConfig, GptOssLayerTypesAndMxfp4) {
  std::vector<std::string> w;
  const auto m = load("gpt-oss-120b.config.json", w);
  EXPECT_EQ(m.sliding_layers, 18);
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.weight_dtype, "mxfp4");
  EXPECT_EQ(kv_per_token(m), 18 * 2 * 8 * 64 * 2);
  EXPECT_NEAR(m.params_total_b, 116.8, 116.8 * 0.05);
  EXPECT_NEAR(m.params_active_b, 5.1, 5.1 * 0.1);
}

TEST(HfConfig, DeepSeekMla) {
  std::vector<std::string> w;
  const auto m = load("deepseek-v3.config.json", w);
  EXPECT_EQ(m.attention, AttentionKind::kMla);
  EXPECT_EQ(m.weight_dtype, "fp8");
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_EQ(kv_per_token(m), 70272);
  EXPECT_NEAR(m.params_total_b, 671, 671 * 0.03);
  EXPECT_NEAR(m.params_active_b, 37, 37 * 0.1);
}

TEST(HfConfig, NemotronHybridPatternAndUninterpretedFieldWarning) {
  std::vector<std::string> w;
  const auto m = load("nemotron-h.config.json", w);
  EXPECT_EQ(m.mamba_layers, 23);
  EXPECT_EQ(m.full_attention_layers(), 6);
  EXPECT_EQ(kv_per_token(m), 6144);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w.front().find("mystery_kv_layout"), std::string::npos) << w.front();
}

TEST(HfConfig, BrokenFilesAreUsageErrorsNamingTheFile) {
  std::vector<std::string> w;
  for (const char* f : {"truncated.config.json", "incomplete.config.json"}) {
    try {
      (void)load(f, w);
      FAIL() << f;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)resolve_model("/nonexistent/config.json", w), UsageError);
}

// Found by mutating the test configs: fields of an unexpected type were JSON exceptions (exit 3).
TEST(HfConfig, FieldsOfTheWrongTypeAreUsageErrorsNamingTheFile) {
  std::ifstream in(data("qwen3-14b.config.json"));
  std::stringstream text;
  text << in.rdbuf();
  const auto good = nlohmann::json::parse(text.str());
  std::vector<std::string> w;
  ASSERT_NO_THROW((void)model_from_hf_config(good.dump(), "qwen.json", w));
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"tie_word_embeddings", 1},
           {"num_hidden_layers", "forty"},
           {"head_dim", -8},
           {"torch_dtype", "float8_e4m3fn"},  // quantized weights are stated in quantization_config
           {"torch_dtype", "int8"},
           {"layer_types", {"full_attention", "full_attention", "full_attention", "full_attention"}}}) {
    auto bad = good;
    bad[key] = value;
    try {
      (void)model_from_hf_config(bad.dump(), "qwen.json", w);
      FAIL() << key;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("qwen.json: field '" + key + "'"), std::string::npos) << e.what();
    }
  }
  // A context past the --max-model-len flag's limit (10^12 tokens) overflows the KV byte counts:
  // refused like the flag; a zero is out of range, not "missing".
  for (const long long length : {0LL, 99'999'999'999'999LL}) {
    auto bad = good;
    bad["max_position_embeddings"] = length;
    try {
      (void)model_from_hf_config(bad.dump(), "qwen.json", w);
      FAIL() << length;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("max_position_embeddings"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
  }
  // A key given twice: the JSON library keeps the last silently; refused, naming it.
  auto text_twice = good.dump();
  text_twice.insert(1, "\"hidden_size\": 1, ");
  try {
    (void)model_from_hf_config(text_twice, "qwen.json", w);
    FAIL() << "hidden_size twice accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("qwen.json: key 'hidden_size' appears twice"), std::string::npos)
        << e.what();
  }
  // An odd model id is not KV-relevant: read as absent, not an error. An odd quantization method
  // sizes the weights: refused naming the field (issue 59 row 21; tests/unit/catalog/test_quantization).
  auto odd = good;
  odd["_name_or_path"] = nlohmann::json::array();
  EXPECT_NO_THROW((void)model_from_hf_config(odd.dump(), "qwen.json", w));
  odd["quantization_config"] = {{"quant_method", 5}};
  EXPECT_THROW((void)model_from_hf_config(odd.dump(), "qwen.json", w), UsageError);
}

TEST(CatalogYaml, UnknownKeyAndWrongTypeAreNamed) {
  try {
    (void)model_from_yaml("name: x\nhf_id: y\nsource: z\nnum_hidden_layer: 3\n", "bad.yaml");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("num_hidden_layer"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos);
  }
  EXPECT_THROW((void)model_from_yaml("name: x\nhf_id: y\nsource: z\nnum_hidden_layers: many\n", "bad.yaml"),
               UsageError);
  EXPECT_THROW((void)model_from_yaml("name: [unclosed\n", "bad.yaml"), UsageError);
}
