// output/common/time_model_text's calibration_origin_text: each origin against a line written by hand, and
// the file a real `kvbench calibrate` writes read back into the same words.
#include <gtest/gtest.h>

#include "core/yaml_reader.hpp"
#include "output/common/time_model_text.hpp"
#include "perf/calibration.hpp"

namespace kvb {
namespace {

TEST(CalibrationOriginText, EachOriginIsWordedWithWhatItNames) {
  CalibrationOrigin o;
  EXPECT_EQ(calibration_origin_text(o), "defaults");
  o.from = CalibrationFrom::kHardwareTable;
  o.hardware = "h100";
  o.fitted_to = "inference-sim training runs";
  EXPECT_EQ(calibration_origin_text(o), "h100 (fitted to inference-sim training runs)");
  o = {};
  o.from = CalibrationFrom::kCalibrate;
  o.device = "NVIDIA H100 80GB HBM3";
  o.model = "llama-3.1-8b";
  EXPECT_EQ(calibration_origin_text(o), "kvbench calibrate on NVIDIA H100 80GB HBM3 (llama-3.1-8b)");
  o = {};
  o.from = CalibrationFrom::kFromVllm;
  o.runs = 3;
  EXPECT_EQ(calibration_origin_text(o), "kvbench calibrate --from-vllm (3 runs)");
  o = {};
  o.from = CalibrationFrom::kRecorded;
  o.text = "as the document said";
  EXPECT_EQ(calibration_origin_text(o), "as the document said");
}

TEST(CalibrationOriginText, AFileNamesTheGpuItsMeasuredBlockNames) {
  const auto plain =
      parse_calibration(YamlObject::parse("compute-efficiency: 0.6\n", "cal.yaml"), "cal.yaml");
  EXPECT_EQ(calibration_origin_text(plain.origin), "cal.yaml");
  const auto measured = parse_calibration(
      YamlObject::parse("compute-efficiency: 0.6\nmeasured:\n  device: NVIDIA H200\n  model: qwen3-14b\n",
                        "m.yaml"),
      "m.yaml");
  EXPECT_EQ(calibration_origin_text(measured.origin), "m.yaml (kvbench calibrate on NVIDIA H200, qwen3-14b)");
  const auto unnamed = parse_calibration(YamlObject::parse("measured:\n  points: 3\n", "u.yaml"), "u.yaml");
  EXPECT_EQ(calibration_origin_text(unnamed.origin), "u.yaml (kvbench calibrate on an unnamed GPU, ?)");
}

}  // namespace
}  // namespace kvb
