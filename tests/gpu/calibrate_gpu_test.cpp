// kvbench calibrate on a real GPU (label gpu; skipped without one): the timer's GEMM and copy rates
// stay under the hardware table's peaks and above a floor no working GPU misses, and the fitted
// time model lands near the PyTorch ground truth measured on the same GPU model
// (tests/data/gpu-runs/<hw>/). The tolerances are wide on purpose: calibrate times cuBLAS GEMMs,
// while the ground truth is a whole eager PyTorch forward (flash attention slower than the GEMMs,
// kernel launches, norms); the gap is printed so each GPU session can see it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "backend/operator_timer.hpp"
#include "calibrate/calibration_run.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "output/common/time_model_text.hpp"
#include "perf/step_time_model.hpp"

using namespace kvb;

namespace {

struct Gpu {
  std::unique_ptr<OperatorTimer> timer;
  HardwareSpec hw;
  std::string skip;
};

Gpu open_gpu() {
  Gpu g;
  try {
    g.timer = make_operator_timer(BackendKind::kAuto, 0);
  } catch (const DeviceError& e) {
    g.skip = e.what();
    return g;
  }
  const auto name = hardware_for_device_name(g.timer->device_name());
  if (name.empty()) {
    g.skip = g.timer->device_name() + " is not in the hardware table";
    return g;
  }
  g.hw = resolve_hardware(name);
  return g;
}

}  // namespace

TEST(CalibrateGpu, GemmAndCopyRatesAreUnderThePeaks) {
  auto g = open_gpu();
  if (!g.skip.empty()) GTEST_SKIP() << g.skip;
  const GemmOp square{"square", 8192, 8192, 8192, 1, GemmOp::Form::kLinear};
  const auto t = g.timer->time_sequence({square}, 1, 10);
  const double tflops = square.flops() / t.seconds / 1e12;
  std::printf("%s: bf16 GEMM 8192^3 %.0f TFLOP/s (table %.0f), spread %.3f\n", g.timer->device_name().c_str(),
              tflops, g.hw.bf16_tflops, t.spread);
  EXPECT_LE(tflops, g.hw.bf16_tflops * 1.02);
  EXPECT_GE(tflops, g.hw.bf16_tflops * 0.3);
  const std::uint64_t bytes = 1ull << 30;
  const double gbps = 2.0 * static_cast<double>(bytes) / g.timer->time_device_copy(bytes, 10) / 1e9;
  std::printf("device copy %.0f GB/s (table %.0f)\n", gbps, g.hw.hbm_bandwidth_gbps);
  EXPECT_LE(gbps, g.hw.hbm_bandwidth_gbps * 1.02);
  EXPECT_GE(gbps, g.hw.hbm_bandwidth_gbps * 0.5);
}

TEST(CalibrateGpu, FittedModelLandsNearTheGroundTruth) {
  auto g = open_gpu();
  if (!g.skip.empty()) GTEST_SKIP() << g.skip;
  const std::string dir = std::string(KVBENCH_TEST_DATA) + "/gpu-runs/" + g.hw.name + "/";
  std::ifstream prefill_file(dir + "prefill-ground-truth.json");
  std::ifstream decode_file(dir + "decode-and-pinning-ground-truth.json");
  if (!prefill_file || !decode_file) GTEST_SKIP() << "no ground truth for " << g.hw.name;
  CalibrationRequest r;
  std::vector<std::string> warnings;
  r.model = resolve_model("llama-3.1-8b", warnings);
  r.hw = g.hw;
  r.prefill_tokens = {2048, 32768};
  r.decode_batches = {1, 64, 256};
  r.repetitions = 5;
  const auto defaults = default_calibration(g.hw);
  r.step_overhead_us = defaults.step_overhead_s * 1e6;
  r.step_overhead_source = calibration_origin_text(defaults.origin);
  const auto out = run_calibration(*g.timer, r);
  std::printf("fitted compute %.3f memory %.3f (hardware file, fitted to PyTorch: %.3f %.3f)\n",
              out.fitted.compute_efficiency, out.fitted.memory_efficiency, defaults.compute_efficiency,
              defaults.memory_efficiency);
  const StepTimeModel steps(r.model, g.hw, 131072, 1, "bf16", out.fitted);
  const auto prefill = nlohmann::json::parse(prefill_file);
  for (const auto& p : prefill.at("points")) {
    const auto tokens = p.at("tokens").get<std::int64_t>();
    if (tokens < 2048) continue;
    const double truth = p.at("prefill_ms").get<double>() / 1e3;
    const double ratio = steps.prefill_seconds(tokens, 8192) / truth;
    std::printf("prefill %lld tokens: calibrated / measured %.2f\n", static_cast<long long>(tokens), ratio);
    EXPECT_NEAR(ratio, 1.0, 0.40) << tokens << " tokens";
  }
  const auto decode = nlohmann::json::parse(decode_file);
  for (const auto& d : decode.at("decode")) {
    StepWork w;
    for (int b = 0; b < d.at("batch").get<int>(); ++b) w.add(d.at("context").get<std::int64_t>(), 1, 0);
    const double ratio = steps.step_seconds(w) / (d.at("step_ms").get<double>() / 1e3);
    std::printf("decode batch %d: calibrated / measured %.2f\n", d.at("batch").get<int>(), ratio);
    EXPECT_NEAR(ratio, 1.0, 0.25) << "batch " << d.at("batch").get<int>();
  }
}
