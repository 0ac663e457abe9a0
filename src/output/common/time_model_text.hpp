#pragma once
// The step time model in words: its roofline, factors and calibration, as simulate and size print
// it ("roofline per TP rank: max(FLOPs / (989 TFLOP/s x 0.50), ...").
#include <string>

#include "perf/step_time_model.hpp"

namespace kvb {

std::string time_model_text(const TimeModelTerms& t);
// Where a calibration came from: "defaults", "h100 (fitted to ...)", "FILE (kvbench calibrate on
// DEVICE, MODEL)", "kvbench calibrate --from-vllm (3 runs)"; a document's own words read back.
std::string calibration_origin_text(const CalibrationOrigin& o);

}  // namespace kvb
