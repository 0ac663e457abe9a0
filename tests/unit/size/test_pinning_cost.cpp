// Pinning seconds per GiB are data: each GPU's hardware file, checked here against the measured
// rows of the measurement file it names (the 32 GiB rows: /dev/shm mmap + first touch +
// cudaHostRegister, and cudaHostAlloc), so the YAML cannot drift from its measurement.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "size/pinning_cost.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

struct Measured32 {
  double shm_register_s = 0, host_alloc_s = 0;
};

Measured32 rows_at_32gib(const std::string& file) {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/gpu-runs/" + file);
  const auto doc = nlohmann::json::parse(in);
  Measured32 m;
  for (const auto& row : doc.at("pinning")) {
    if (row.at("gib") != 32) continue;
    const auto how = row.at("how").get<std::string>();
    if (how.rfind("mmap /dev/shm", 0) == 0)
      m.shm_register_s = row.at("touch_seconds").get<double>() + row.at("register_seconds").get<double>();
    if (how.rfind("cudaHostAlloc", 0) == 0) m.host_alloc_s = row.at("seconds").get<double>();
  }
  return m;
}

TEST(PinningCost, EachMeasuredGpuMatchesItsBaselineFile) {
  for (const auto& [hw, file] : {std::pair{"h100", "h100/decode-and-pinning-ground-truth.json"},
                                 std::pair{"h200", "h200/decode-and-pinning-ground-truth.json"}}) {
    const auto cost = pinning_cost(resolve_hardware(hw));
    const auto m = rows_at_32gib(file);
    ASSERT_GT(m.shm_register_s, 0) << file;
    // The YAML keeps four significant figures of the measured seconds.
    EXPECT_NEAR(cost.register_s_per_gib * 32, m.shm_register_s, 1e-3) << hw;
    EXPECT_NEAR(cost.host_alloc_s_per_gib * 32, m.host_alloc_s, 1e-3) << hw;
    EXPECT_NE(cost.source.find(file), std::string::npos) << hw;
  }
}

TEST(PinningCost, AnUnmeasuredGpuBorrowsTheH100FigureAndNamesIt) {
  const auto cost = pinning_cost(resolve_hardware("mi300x"));
  EXPECT_DOUBLE_EQ(cost.register_s_per_gib, pinning_cost(resolve_hardware("h100")).register_s_per_gib);
  EXPECT_EQ(cost.hardware, "mi300x");
  EXPECT_EQ(cost.stood_in, "h100");
  EXPECT_EQ(cost.source, pinning_cost(resolve_hardware("h100")).source);
}

TEST(PinningCost, FiguresWithoutTheirSourceAreRefused) {
  const std::string yaml =
      "name: x\ndescription: x\nsource: x\nvendor: nvidia\nhbm_gb: 80\nusable_gib: 79\n"
      "hbm_bandwidth_gbps: 3000\nhost_link: pcie\npcie_generation: 5\npcie_width: 16\n"
      "link_practical_gbps: 50\nbf16_tflops: 900\nfp8_tflops: 1800\ngpus_per_node: 8\nhost_dram_gb: 1024\n"
      "pinning_register_s_per_gib: 0.25\npinning_host_alloc_s_per_gib: 0.4\n";
  EXPECT_THROW((void)hardware_from_yaml(yaml, "x.yaml"), UsageError);
  EXPECT_EQ(hardware_from_yaml(yaml + "pinning_source: \"measured\"\n", "x.yaml").measured_pinning.source,
            "measured");
}

}  // namespace
}  // namespace kvb
