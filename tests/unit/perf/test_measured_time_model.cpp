// The PyTorch stand-in calibrations (reports/calibrations/*-pytorch-standin.yaml) against the
// ground truth they were fitted to (tests/data/gpu-runs): a Llama-3.1-8B shape in PyTorch, prefill
// of 2,048 and 32,768 tokens (the simulator's chunked prefill within 5%) and CUDA-graph decode
// steps at batch 1, 64 and 256 with 1,024 tokens of context each (within 10%). The shipped
// defaults are fitted to real vLLM servers instead: tests/fidelity scores those.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "perf/calibration.hpp"
#include "perf/step_time_model.hpp"
#include "test_helpers.hpp"
#include "test_paths.hpp"

using namespace kvb;

namespace {

nlohmann::json ground_truth(const std::string& hw, const std::string& file) {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/gpu-runs/" + hw + "/" + file);
  return nlohmann::json::parse(in);
}

Calibration standin(const std::string& hw) {
  return load_calibration(std::string(KVBENCH_BASELINES) + "/../calibrations/" + hw +
                          "-pytorch-standin.yaml");
}

class MeasuredTimeModel : public ::testing::TestWithParam<std::string> {};

TEST_P(MeasuredTimeModel, PrefillWithinFivePercentFrom2KTo32K) {
  const auto hw = resolve_hardware(GetParam());
  const StepTimeModel steps(test::model("llama-3.1-8b"), hw, 131072, 1, "bf16", standin(GetParam()));
  int checked = 0;
  const auto truth =
      ground_truth(GetParam(), "prefill-ground-truth.json");  // a named value: the loop refers into it
  for (const auto& p : truth.at("points")) {
    const auto tokens = p.at("tokens").get<std::int64_t>();
    if (tokens < 2048) continue;  // 512 tokens: eager PyTorch's launch cost dominates (17 ms per forward)
    const double measured = p.at("prefill_ms").get<double>() / 1e3;
    EXPECT_NEAR(steps.prefill_seconds(tokens, 8192) / measured, 1.0, 0.05) << tokens << " tokens";
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST_P(MeasuredTimeModel, DecodeStepWithinTenPercent) {
  const auto hw = resolve_hardware(GetParam());
  const StepTimeModel steps(test::model("llama-3.1-8b"), hw, 131072, 1, "bf16", standin(GetParam()));
  int checked = 0;
  const auto truth = ground_truth(GetParam(), "decode-and-pinning-ground-truth.json");
  for (const auto& d : truth.at("decode")) {
    const auto batch = d.at("batch").get<int>();
    const auto context = d.at("context").get<std::int64_t>();
    StepWork w;
    for (int b = 0; b < batch; ++b) w.add(context, 1, 0);  // one new token per sequence
    const double measured = d.at("step_ms").get<double>() / 1e3;
    EXPECT_NEAR(steps.step_seconds(w) / measured, 1.0, 0.10) << "batch " << batch;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

INSTANTIATE_TEST_SUITE_P(GroundTruth, MeasuredTimeModel, ::testing::Values("h100", "h200"));

TEST(MeasuredTimeModelDefaults, OtherGpusKeepTheGenericDefaults) {
  const auto c = default_calibration(resolve_hardware("b200"));
  EXPECT_EQ(c.origin.from, CalibrationFrom::kDefaults);
  EXPECT_DOUBLE_EQ(c.compute_efficiency, 0.5);
}

}  // namespace
