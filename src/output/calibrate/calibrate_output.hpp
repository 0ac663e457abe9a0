#pragma once
// `kvbench calibrate`'s text: the timed points, the fit and what was modelled.
#include <string>

#include "calibrate/calibration_run.hpp"
#include "calibrate/vllm_fit.hpp"

namespace kvb {

std::string calibration_text(const CalibrationResult& r);
// "2048 tokens" (prefill) or "batch 64 @ 1024" (decode), as text and the report show a point.
std::string point_label(const CalibrationPoint& p);

// calibrate --from-vllm: per run, measured vs simulated means with the fit and with the default,
// then each run's origin (run_origin_text).
std::string vllm_fit_text(const VllmFit& fit);

// "start_times", or "not in the file: a Poisson process at its request_rate 2/s (seed 1)".
std::string arrivals_text(const ArrivalsSource& a);
// "AIPerf, arrivals from metadata.request_start_ns; left out of the fit: 1 request the client
// recorded as failed, 2 without a TTFT or an end-to-end latency" ("every request fitted" where none).
std::string run_origin_text(const RunOrigin& o);

}  // namespace kvb
