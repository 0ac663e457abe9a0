// The catalogs against per-token figures computed by hand from each model's config.json on Hugging Face.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "size/kv_layout.hpp"
#include "test_helpers.hpp"

using namespace kvb;

TEST(ModelCatalog, Bf16KvBytesPerTokenMatchReferenceTable) {
  const std::map<std::string, std::int64_t> expected = {{"llama-3.1-8b", 131072},
                                                        {"llama-3.1-70b", 327680},
                                                        {"llama-3.1-405b", 516096},
                                                        {"llama-3.2-1b", 32768},
                                                        {"qwen3-32b", 262144},
                                                        {"qwen3-235b-a22b", 192512},
                                                        {"qwen3-vl-235b-a22b", 192512},
                                                        {"deepseek-v3", 70272},
                                                        {"deepseek-r1", 70272},
                                                        {"kimi-k2", 70272},
                                                        {"glm-4.5", 376832},
                                                        {"minimax-m2", 253952},
                                                        {"nemotron-3-nano-30b-a3b", 6144},
                                                        {"gpt-oss-120b", 36864},
                                                        {"mistral-large-2407", 360448}};
  const auto hw = resolve_hardware("h100");
  for (const auto& [name, bytes] : expected) {
    KvSettings s;
    s.kv_cache_dtype = "bfloat16";
    EXPECT_EQ(compute_kv_layout(test::model(name), hw, s).kv_bytes_per_token(), bytes) << name;
  }
}

TEST(ModelCatalog, OneLongRequestMatchesReference) {
  // "One 128k request (bf16, whole model)": 128k = 131,072 tokens here.
  const std::map<std::string, double> gib = {
      {"llama-3.1-405b", 63.0}, {"llama-3.1-70b", 40.0}, {"qwen3-235b-a22b", 23.5}, {"deepseek-v3", 8.6}};
  const auto hw = resolve_hardware("h100");
  for (const auto& [name, want] : gib) {
    const auto l = compute_kv_layout(test::model(name), hw, KvSettings{});
    EXPECT_NEAR(static_cast<double>(request_bytes(l, 131072, 8192)) / kGiB, want, 0.05) << name;
  }
}

TEST(ModelCatalog, EveryReferenceModelIsPresentWithUniqueNames) {
  std::set<std::string> seen;
  for (const auto& m : model_catalog()) {
    EXPECT_TRUE(seen.insert(m.name).second) << m.name;
    for (const auto& a : m.aliases) EXPECT_TRUE(seen.insert(a).second) << "duplicate alias " << a;
    EXPECT_FALSE(m.source.empty()) << m.name;
  }
  for (const char* n :
       {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "qwen3-32b", "qwen3-235b-a22b",
        "qwen3-vl-235b-a22b", "deepseek-v3", "deepseek-r1", "deepseek-v3.2", "kimi-k2", "glm-4.5", "glm-5",
        "minimax-m2", "nemotron-3-nano-30b-a3b", "gpt-oss-120b", "mistral-large-2407", "llama-405b",
        "qwen3-235b"}) {
    EXPECT_NO_THROW((void)test::model(n)) << n;
  }
}

TEST(ModelCatalog, UnknownNameListsClosest) {
  try {
    (void)test::model("llama-404b");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("llama-405b"), std::string::npos) << e.what();
  }
}

TEST(HardwareCatalog, AllTargetsPresentAndConsistent) {
  for (const char* n : {"h100", "h200", "gh200", "b200", "gb200", "mi300x", "mi325x", "mi355x"}) {
    const auto h = resolve_hardware(n);
    // HBM labels count binary gigabytes (an "80 GB" H100 has 80 GiB of HBM, 79.19 GiB usable).
    EXPECT_LE(h.usable_gib, h.hbm_gb) << n;
    EXPECT_GT(h.usable_gib, h.hbm_gb * 0.97) << n;
    EXPECT_LE(h.link_practical_gbps, h.link_ceiling_gbps()) << n;
    EXPECT_GT(h.fp8_tflops, h.bf16_tflops) << n;
  }
  EXPECT_THROW((void)resolve_hardware("h300"), UsageError);
  EXPECT_NEAR(resolve_hardware("gh200").link_ceiling_gbps(), 450.0, 1e-9);  // 900 GB/s both ways
}
