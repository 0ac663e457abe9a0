#pragma once
// What `kvbench calibrate` writes: its JSON result (kvbench/calibrate/v1, read back by
// calibrate/calibration_file) and the calibration files, which `simulate --calibration` and
// `size --calibration` read (perf/calibration's parse_calibration): compute-efficiency,
// memory-efficiency, step-overhead-us and the rest, with a header comment saying what they were fitted
// to. A GEMM calibration keeps the measurement behind them under `measured:` (readers skip it);
// a --from-vllm fit lists each run's errors with the fit and with its start as comments.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/calibration_run.hpp"
#include "calibrate/vllm_fit.hpp"

namespace kvb {

// What a GEMM calibration ran on and modelled rather than timed, as its notes say it: the BLAS
// library, the FFN width's source, the terms modelled and the step overhead's source.
std::vector<std::string> calibration_run_notes(const CalibrationResult& r);
// kvbench/calibrate/v1.
nlohmann::json calibration_json(const CalibrationResult& r);
// `date` goes into the header comment.
std::string calibration_yaml(const CalibrationResult& r, const std::string& date);
std::string vllm_fit_yaml(const VllmFit& fit, const std::string& date);

}  // namespace kvb
