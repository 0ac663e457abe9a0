// The link fit t = t0 + bytes / B: recovered exactly from a hand-made line, refused without two
// sizes, and the measured H100/H200 figures in scenarios/hardware are the fit of the committed
// baselines (checked against the published per-copy cost and the PCIe Gen5 ceiling too).
#include <gtest/gtest.h>

#include <string>

#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "dma/dma_json.hpp"
#include "dma/link_fit.hpp"
#include "output/dma/dma_output.hpp"
#include "perf/link_curve.hpp"
#include "test_paths.hpp"

using namespace kvb;

TEST(LinkFit, RecoversAnExactLine) {
  // 3 us per copy and 50 GB/s: 4 KiB takes 3 + 0.08192 us, 2 MiB 3 + 41.94304 us.
  std::vector<std::pair<double, double>> pts;
  for (const double b : {4096.0, 65536.0, 2097152.0, 16777216.0}) pts.emplace_back(b, 3e-6 + b / 50e9);
  const auto f = fit_copy_cost(pts);
  EXPECT_NEAR(f.per_copy_s, 3e-6, 1e-12);
  EXPECT_NEAR(f.gbps, 50.0, 1e-6);
  EXPECT_LT(f.max_relative_error, 1e-9);
  EXPECT_EQ(f.points, 4u);
}

TEST(LinkFit, NeedsTwoBlockSizesAndPositivePoints) {
  EXPECT_THROW((void)fit_copy_cost({{4096.0, 1e-6}, {4096.0, 1.1e-6}}), UsageError);
  EXPECT_THROW((void)fit_copy_cost({{4096.0, -1e-6}, {8192.0, 1e-6}}), UsageError);
  // Time falling with size is no link.
  EXPECT_THROW((void)fit_copy_cost({{4096.0, 2e-6}, {8192.0, 1e-6}}), UsageError);
}

namespace {

void expect_hardware_matches_baseline(const std::string& hw_name, const std::string& file) {
  const std::string path = std::string(KVBENCH_BASELINES) + "/" + file;
  const auto records = dma_records_from_json(read_json_file(path, path), path);
  const auto hw = resolve_hardware(hw_name);
  const auto& m = hw.measured_link;
  ASSERT_FALSE(m.source.empty()) << hw_name << " has no measured link";
  EXPECT_NE(m.source.find(file), std::string::npos) << "the source names the baseline file";
  const auto h2d = fit_copy_cost(records, Method::kCe, Direction::kH2D, path);
  const auto d2h = fit_copy_cost(records, Method::kCe, Direction::kD2H, path);
  EXPECT_NEAR(m.h2d_gbps, h2d.gbps, 0.01 * h2d.gbps);
  EXPECT_NEAR(m.d2h_gbps, d2h.gbps, 0.01 * d2h.gbps);
  EXPECT_NEAR(m.h2d_per_copy_us, h2d.per_copy_s * 1e6, 0.01 * h2d.per_copy_s * 1e6);
  EXPECT_NEAR(m.d2h_per_copy_us, d2h.per_copy_s * 1e6, 0.01 * d2h.per_copy_s * 1e6);
  // Independent checks: below the PCIe Gen5 x16 ceiling (63.0 GB/s) and near the published
  // measured 51-57 GB/s; a per-copy cost of a few microseconds (the vLLM blog: 3-4 us).
  for (const auto* f : {&h2d, &d2h}) {
    EXPECT_GT(f->gbps, 45.0);
    EXPECT_LT(f->gbps, 63.0);
    EXPECT_GT(f->per_copy_s, 1e-6);
    EXPECT_LT(f->per_copy_s, 5e-6);
  }
  EXPECT_NEAR(hw.link_practical_gbps, m.h2d_gbps, 0.1);
  // The simulator's link without a --link-profile uses them and says they were measured.
  const auto profile = link_profile_from_hardware(hw);
  EXPECT_EQ(profile.origin.figures, LinkFigures::kTableMeasured);
  EXPECT_NEAR(profile.d2h.seconds(1000, 2097152.0),
              1000 * (m.d2h_per_copy_us * 1e-6 + 2097152.0 / (m.d2h_gbps * 1e9)), 1e-9);
}

}  // namespace

TEST(LinkFit, H100AndH200LinkFiguresAreTheFitOfTheirCommittedBaselines) {
  expect_hardware_matches_baseline("h100", "cuda-nvidia-h100-80gb-hbm3.json");
  expect_hardware_matches_baseline("h200", "cuda-nvidia-h200.json");
}

TEST(LinkFit, OtherGpusKeepDatasheetFiguresMarkedSoft) {
  const auto hw = resolve_hardware("b200");
  EXPECT_TRUE(hw.measured_link.source.empty());
  EXPECT_EQ(link_profile_from_hardware(hw).origin.figures, LinkFigures::kDatasheet);
}
