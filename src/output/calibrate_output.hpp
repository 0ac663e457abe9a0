#pragma once
// `kvbench calibrate`'s text: the timed points, the fit and what was modelled.
#include <string>

#include "calibrate/calibration_run.hpp"

namespace kvb {

std::string calibration_text(const CalibrationResult& r);

}  // namespace kvb
