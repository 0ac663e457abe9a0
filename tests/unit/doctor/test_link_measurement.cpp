// doctor's measured link against its floor: 85% of the hardware file's figure for that GPU model,
// computed here by hand from scenarios/hardware/h100.yaml's measured h2d and d2h.
#include <gtest/gtest.h>

#include "doctor/link_measurement.hpp"
#include "output/doctor/doctor_check_text.hpp"

namespace kvb {
namespace {

DmaRecord copy_at(Direction d, double gbps, const std::string& device = "NVIDIA H100 80GB HBM3") {
  DmaRecord r;
  r.tcase.direction = d;
  r.device.name = device;
  r.device.backend = "cuda";
  r.device.index = 2;
  r.median_gbps = gbps;
  r.verified = true;
  return r;
}

TEST(LinkMeasurement, EachDirectionIsJudgedAgainst85PercentOfItsOwnMeasuredFigure) {
  // h100.yaml: link_measured_h2d_gbps 54.06, link_measured_d2h_gbps 53.21.
  const auto checks = worded_checks(link_measured_checks(
      {copy_at(Direction::kH2D, 46.0), copy_at(Direction::kD2H, 45.0), copy_at(Direction::kH2D, 45.9)}));
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].name, "link measured h2d GPU 2");
  EXPECT_DOUBLE_EQ(*checks[0].threshold, 0.85 * 54.06);  // 45.951
  EXPECT_EQ(checks[0].status, CheckStatus::kPass);
  EXPECT_DOUBLE_EQ(*checks[1].threshold, 0.85 * 53.21);  // 45.2285
  EXPECT_EQ(checks[1].status, CheckStatus::kFail);
  EXPECT_NE(checks[1].detail.find("below the 45.2 GB/s floor"), std::string::npos);
  EXPECT_EQ(checks[2].status, CheckStatus::kFail);
  EXPECT_NE(checks[0].source.find("85% of 54.1 GB/s, the measured figure"), std::string::npos);
}

TEST(LinkMeasurement, AnUnknownGpuHasNoFloorAndAnUnverifiedCopyIsSkipped) {
  auto unverified = copy_at(Direction::kH2D, 50);
  unverified.verified = false;
  const auto checks =
      worded_checks(link_measured_checks({copy_at(Direction::kH2D, 1.0, "Some Future GPU"), unverified}));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, CheckStatus::kPass);
  EXPECT_FALSE(checks[0].threshold.has_value());
  EXPECT_EQ(checks[1].status, CheckStatus::kSkip);
  EXPECT_EQ(checks[1].detail, "the copy did not verify");
}

}  // namespace
}  // namespace kvb
