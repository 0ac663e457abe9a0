// The catalogs against per-token figures computed by hand from each model's config.json on Hugging Face.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/link_ceiling.hpp"
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
  for (const char* n : {"llama-3.1-8b",
                        "llama-3.1-70b",
                        "llama-3.1-405b",
                        "llama-3.2-1b",
                        "qwen3-32b",
                        "qwen3-235b-a22b",
                        "qwen3-vl-235b-a22b",
                        "deepseek-v3",
                        "deepseek-r1",
                        "deepseek-v3.2",
                        "kimi-k2",
                        "glm-4.5",
                        "glm-5",
                        "minimax-m2",
                        "nemotron-3-nano-30b-a3b",
                        "gpt-oss-120b",
                        "gpt-oss-20b",
                        "mistral-large-2407",
                        "llama-405b",
                        "qwen3-235b"}) {
    EXPECT_NO_THROW((void)test::model(n)) << n;
  }
  for (const char* n : {"qwen3-0.6b", "qwen3-8b", "qwen3-32b-awq"})
    EXPECT_NO_THROW((void)test::model(n)) << n;
}

TEST(ModelCatalog, QwenSmallAndAwqKvBytesPerTokenByHand) {
  // bf16 KV per token, whole model: 2 (K and V) x layers x KV heads x head_dim x 2 bytes, from each
  // config.json on Hugging Face (Qwen/Qwen3-0.6B, Qwen/Qwen3-8B, Qwen/Qwen3-32B-AWQ).
  const std::map<std::string, std::int64_t> expected = {
      {"qwen3-0.6b", 2 * 28 * 8 * 128 * 2},     // 114,688: 28 layers, 8 KV heads, head_dim 128
      {"qwen3-8b", 2 * 36 * 8 * 128 * 2},       // 147,456: 36 layers, 8 KV heads, head_dim 128
      {"qwen3-32b-awq", 2 * 64 * 8 * 128 * 2},  // 262,144: 64 layers, 8 KV heads, head_dim 128
  };
  const auto hw = resolve_hardware("h100");
  for (const auto& [name, bytes] : expected) {
    KvSettings s;
    s.kv_cache_dtype = "bfloat16";
    EXPECT_EQ(compute_kv_layout(test::model(name), hw, s).kv_bytes_per_token(), bytes) << name;
  }
  // 4-bit AWQ weights leave the KV cache as large as the bf16 model's.
  KvSettings s;
  s.kv_cache_dtype = "bfloat16";
  EXPECT_EQ(compute_kv_layout(test::model("qwen3-32b-awq"), hw, s).kv_bytes_per_token(),
            compute_kv_layout(test::model("qwen3-32b"), hw, s).kv_bytes_per_token());
  EXPECT_EQ(test::model("qwen3-32b-awq").weight_dtype, "awq");
  EXPECT_TRUE(test::model("qwen3-0.6b").tie_word_embeddings);
}

// The inference-sim training runs' models (issue 32), from each config.json on Hugging Face: KV per
// token by hand, and the parameter counts against their shapes (q and o: hidden^2 each; k and v:
// hidden x KV heads x 128 each; MLP: 3 x hidden x intermediate, per expert for Mixtral; embedding
// and LM head untied: 2 x 32,000 x hidden).
TEST(ModelCatalog, TrainingRunModelsByHand) {
  const auto hw = resolve_hardware("h100");
  KvSettings s;
  s.kv_cache_dtype = "bfloat16";
  const std::map<std::string, std::int64_t> kv = {
      {"llama-2-7b", 2 * 32 * 32 * 128 * 2},    // 524,288: no GQA
      {"llama-2-70b", 2 * 80 * 8 * 128 * 2},    // 327,680
      {"codellama-34b", 2 * 48 * 8 * 128 * 2},  // 196,608
      {"mixtral-8x7b", 2 * 32 * 8 * 128 * 2},   // 131,072
  };
  for (const auto& [name, bytes] : kv)
    EXPECT_EQ(compute_kv_layout(test::model(name), hw, s).kv_bytes_per_token(), bytes) << name;
  const auto params = [](double layers, double hidden, double kv_heads, double mlp, double experts) {
    return layers * (2 * hidden * hidden + 2 * hidden * kv_heads * 128 + experts * 3 * hidden * mlp) +
           2 * 32000 * hidden;
  };
  EXPECT_NEAR(test::model("llama-2-7b").params_total_b * 1e9, params(32, 4096, 32, 11008, 1), 0.01e9);
  EXPECT_NEAR(test::model("llama-2-70b").params_total_b * 1e9, params(80, 8192, 8, 28672, 1), 0.01e9);
  EXPECT_NEAR(test::model("codellama-34b").params_total_b * 1e9, params(48, 8192, 8, 22016, 1), 0.01e9);
  EXPECT_NEAR(test::model("mixtral-8x7b").params_total_b * 1e9, params(32, 4096, 8, 14336, 8), 0.01e9);
  EXPECT_NEAR(test::model("mixtral-8x7b").params_active_b * 1e9, params(32, 4096, 8, 14336, 2), 0.01e9);
  EXPECT_EQ(test::model("mixtral-8x7b").num_experts, 8);
}

// gpt-oss-20b (tests/fidelity/moe.py's second MXFP4 model), from openai/gpt-oss-20b's config.json: KV
// per token over its 12 full-attention layers (the 12 sliding ones hold 128 tokens, counted apart, as
// gpt-oss-120b's 18), and the parameters against their shapes: attention q and o 2880 x 4096, k and v
// 2880 x 512; one expert 3 x 2880^2; untied embedding and LM head 201,088 x 2,880; active = 4 experts.
TEST(ModelCatalog, GptOss20bByHand) {
  const auto hw = resolve_hardware("h100");
  KvSettings s;
  s.kv_cache_dtype = "bfloat16";
  const auto& m = test::model("gpt-oss-20b");
  EXPECT_EQ(compute_kv_layout(m, hw, s).kv_bytes_per_token(), 2 * 12 * 8 * 64 * 2);  // 24,576
  const double attention = 2.0 * 2880 * 4096 + 2.0 * 2880 * 512;
  const double expert = 3.0 * 2880 * 2880;
  const double embeddings = 2.0 * 201088 * 2880;
  EXPECT_NEAR(m.params_total_b * 1e9, 24 * (attention + 32 * expert) + embeddings, 0.01e9);
  EXPECT_NEAR(m.params_active_b * 1e9, 24 * (attention + 4 * expert) + embeddings, 0.01e9);
  EXPECT_EQ(m.num_experts, 32);
  EXPECT_EQ(m.experts_per_token, 4);
  EXPECT_EQ(m.weight_dtype, "mxfp4");
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

TEST(HardwareCatalog, PcieAndAmpereTargetsPresentAndConsistent) {
  for (const char* n : {"l40s", "l4", "a100-40gb", "a100-80gb", "a100-80gb-pcie", "rtx-pro-6000"}) {
    const auto h = resolve_hardware(n);
    // GDDR cards with ECC report well below their label (an L40S's 48 GB is 44.39 GiB to PyTorch).
    EXPECT_LE(h.usable_gib, h.hbm_gb) << n;
    EXPECT_GT(h.usable_gib, h.hbm_gb * 0.90) << n;
    EXPECT_LE(h.link_practical_gbps, h.link_ceiling_gbps()) << n;
    EXPECT_GT(h.gpu_link_gbps, 0) << n;
    if (h.fp8_tflops > 0) {
      EXPECT_GT(h.fp8_tflops, h.bf16_tflops) << n;
    }
  }
  // Ampere has no FP8 (or FP4) tensor cores; the RTX PRO 6000 (Blackwell) has both.
  for (const char* n : {"a100-40gb", "a100-80gb", "a100-80gb-pcie"}) {
    EXPECT_EQ(resolve_hardware(n).fp8_tflops, 0.0) << n;
    EXPECT_EQ(resolve_hardware(n).fp4_tflops, 0.0) << n;
  }
  EXPECT_GT(resolve_hardware("rtx-pro-6000").fp4_tflops, resolve_hardware("rtx-pro-6000").fp8_tflops);
  EXPECT_EQ(resolve_hardware("a100-80gb").gpu_link_kind, GpuLinkKind::kNvlink);
  EXPECT_EQ(resolve_hardware("a100-80gb-pcie").gpu_link_kind, GpuLinkKind::kPcie);
}

TEST(HardwareCatalog, PcieLinkedGpusHaveNoFabricFasterThanPcie) {
  // A node whose GPUs talk over PCIe cannot all-reduce faster than one PCIe link carries in a
  // direction: a gpu_link_gbps above that ceiling would be an NVLink figure left in a PCIe file.
  int pcie = 0;
  for (const auto& h : hardware_catalog()) {
    if (h.gpu_link_kind != GpuLinkKind::kPcie) continue;
    ++pcie;
    ASSERT_EQ(h.link, HostLinkKind::kPcie) << h.name;
    EXPECT_LE(h.gpu_link_gbps, pcie_ceiling_gbps(h.pcie_generation, h.pcie_width)) << h.name;
  }
  EXPECT_GE(pcie, 4);  // l40s, l4, a100-80gb-pcie, rtx-pro-6000
}

namespace kvb {
namespace {

// An operator's hardware file (--hw FILE.yaml) goes through the catalog's checked reader: the GPU
// fabric's kind defaults by vendor, its bandwidth and latency come together, and FP8/FP4 peaks are
// optional (absent: no such tensor cores).
TEST(HardwareFile, FabricAndPeaksAreCheckedKeyByKey) {
  const std::string base =
      "name: own\ndescription: d\nvendor: amd\nsource: s\nhbm_gb: 32\nusable_gib: 30\nhbm_bandwidth_gbps: "
      "600\n"
      "host_link: pcie\npcie_generation: 4\npcie_width: 16\nlink_practical_gbps: 24\nbf16_tflops: 150\n"
      "gpus_per_node: 4\nhost_dram_gb: 512\n";
  const auto h = hardware_from_yaml(base, "own.yaml");
  EXPECT_EQ(h.gpu_link_kind, GpuLinkKind::kInfinityFabric);  // AMD's default
  EXPECT_EQ(h.fp8_tflops, 0.0);
  EXPECT_EQ(h.gpu_link_gbps, 0.0);
  EXPECT_THROW(hardware_from_yaml(base + "gpu_link_gbps: 20\n", "own.yaml"), UsageError);  // no latency
  EXPECT_THROW(hardware_from_yaml(base + "gpu_link_kind: pci\n", "own.yaml"), UsageError);
  EXPECT_THROW(hardware_from_yaml(base + "fp4_tflops: -1\n", "own.yaml"), UsageError);
  // Past any real card or host (a typo, an overflow): refused, not a pool of -0 or 2^31 GPUs.
  EXPECT_THROW(hardware_from_yaml(base + "fp8_tflops: 1e300\n", "own.yaml"), UsageError);
  auto replaced = [&](const std::string& from, const std::string& to) {
    auto text = base;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_THROW(hardware_from_yaml(replaced("usable_gib: 30", "usable_gib: 1e18"), "own.yaml"), UsageError);
  EXPECT_THROW(hardware_from_yaml(replaced("usable_gib: 30", "usable_gib: 33"), "own.yaml"), UsageError);
  EXPECT_THROW(hardware_from_yaml(replaced("gpus_per_node: 4", "gpus_per_node: 2147483648"), "own.yaml"),
               UsageError);
  EXPECT_THROW(hardware_from_yaml(replaced("gpus_per_node: 4", "gpus_per_node: 99999999999"), "own.yaml"),
               UsageError);
  EXPECT_EQ(hardware_from_yaml(replaced("gpus_per_node: 4", "gpus_per_node: 1024"), "own.yaml").gpus_per_node,
            1024);
  const auto pcie = hardware_from_yaml(
      base + "gpu_link_kind: pcie\ngpu_link_gbps: 20\ngpu_link_latency_us: 20\n", "own.yaml");
  EXPECT_EQ(pcie.gpu_link_kind, GpuLinkKind::kPcie);
  EXPECT_EQ(pcie.gpu_link_gbps, 20.0);
  EXPECT_EQ(h.arch, GpuArch::kUnknown);  // optional: weight-only GEMMs' dequantization not modelled
  EXPECT_EQ(hardware_from_yaml(base + "gpu_arch: cdna3\n", "own.yaml").arch, GpuArch::kCdna3);
  try {
    (void)hardware_from_yaml(base + "gpu_arch: sm90\n", "own.yaml");
    ADD_FAILURE() << "gpu_arch sm90 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("own.yaml: key 'gpu_arch' is 'sm90'; expected ampere"),
              std::string::npos);
  }
}

// Issue 59: each figure's physical floor, PCIe figures checked before narrowing, measured figures
// only with their source, the copy kernel's slowdown at least 1, the MLA block a vLLM block size.
TEST(HardwareFile, FiguresHaveAFloorAndRangesComeBeforeNarrowing) {
  const std::string base =
      "name: own\ndescription: d\nvendor: nvidia\nsource: s\nhbm_gb: 48\nusable_gib: 44\n"
      "hbm_bandwidth_gbps: 864\nhost_link: pcie\npcie_generation: 4\npcie_width: 16\n"
      "link_practical_gbps: 25\nbf16_tflops: 362\ngpus_per_node: 8\nhost_dram_gb: 1024\n";
  const auto message = [&](const std::string& extra, const std::string& from = "",
                           const std::string& to = "") {
    auto text = base + extra;
    if (!from.empty()) text.replace(text.find(from), from.size(), to);
    try {
      (void)hardware_from_yaml(text, "own.yaml");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(hardware_from_yaml(base + "fp4_tflops: 0\nfp8_tflops: 0\n", "own.yaml").fp4_tflops, 0.0);
  // 2^32 + 4 and 2^32 + 16 narrow to 4 and 16: refused as 64-bit values.
  EXPECT_NE(message("", "pcie_generation: 4", "pcie_generation: 4294967300").find("key 'pcie_generation'"),
            std::string::npos);
  EXPECT_NE(message("", "pcie_width: 16", "pcie_width: 4294967312").find("key 'pcie_width'"),
            std::string::npos);
  EXPECT_NE(message("", "pcie_width: 16", "pcie_width: 12").find("key 'pcie_width' is 12"),
            std::string::npos);
  EXPECT_NE(message("", "bf16_tflops: 362", "bf16_tflops: 1e-300").find("expected 0.1 to 1000000 TFLOP/s"),
            std::string::npos);
  EXPECT_EQ(message("", "bf16_tflops: 362", "bf16_tflops: 0.1"), "accepted");  // the floor itself
  EXPECT_NE(message("time_model_step_overhead_us: 500\n").find("needs time_model_source"), std::string::npos);
  EXPECT_NE(message("link_measured_h2d_per_copy_us: 2\n").find("needs link_measured_source"),
            std::string::npos);
  const std::string measured =
      "link_measured_source: m\nlink_measured_h2d_gbps: 24\nlink_measured_d2h_gbps: 24\n"
      "link_measured_h2d_per_copy_us: 2\nlink_measured_d2h_per_copy_us: 2\n";
  EXPECT_NE(message(measured + "link_kernel_compute_slowdown: 0.5\n").find("expected 1 to 100"),
            std::string::npos);
  EXPECT_NE(message("link_kernel_compute_slowdown: 1.5\n").find("needs link_measured_source"),
            std::string::npos);
  EXPECT_EQ(hardware_from_yaml(base + measured + "link_kernel_compute_slowdown: 1\n", "own.yaml")
                .link_kernel_compute_slowdown,
            1.0);
  EXPECT_NE(message("mla_block_size: 1048576\n").find("from 1 to 256"), std::string::npos);
  EXPECT_NE(message("mla_block_size: 48\n").find("expected one of 1, 8, 16"), std::string::npos);
  EXPECT_EQ(hardware_from_yaml(base + "mla_block_size: 64\n", "own.yaml").mla_block_size, 64);
}

// Every catalog card says its architecture (what a kernel's speed depends on).
TEST(HardwareFile, EveryCatalogCardNamesItsArchitecture) {
  for (const auto& h : hardware_catalog()) EXPECT_NE(h.arch, GpuArch::kUnknown) << h.name;
  EXPECT_EQ(resolve_hardware("h100").arch, GpuArch::kHopper);
  EXPECT_EQ(resolve_hardware("rtx-pro-6000").arch, GpuArch::kBlackwellRtx);
}

}  // namespace
}  // namespace kvb
