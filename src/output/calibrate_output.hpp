#pragma once
// `kvbench calibrate`'s text: the timed points, the fit and what was modelled.
#include <string>

#include "calibrate/calibration_run.hpp"
#include "calibrate/vllm_fit.hpp"

namespace kvb {

std::string calibration_text(const CalibrationResult& r);
// "2048 tokens" (prefill) or "batch 64 @ 1024" (decode), as text and the report show a point.
std::string point_label(const CalibrationPoint& p);

// calibrate --from-vllm: per run, measured vs simulated means with the fit and with the default.
std::string vllm_fit_text(const VllmFit& fit);

}  // namespace kvb
