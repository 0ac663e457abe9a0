#pragma once
// `kvbench calibrate`'s text: the timed points, the fit and what was modelled.
#include <string>

#include "calibrate/calibration_run.hpp"
#include "calibrate/vllm_fit.hpp"

namespace kvb {

std::string calibration_text(const CalibrationResult& r);

// calibrate --from-vllm: per run, measured vs simulated means with the fit and with the default.
std::string vllm_fit_text(const VllmFit& fit);

}  // namespace kvb
