#pragma once
// What `kvbench calibrate` writes: the calibration YAML that `simulate --calibration` and
// `size --calibration` read (compute-efficiency, memory-efficiency, step-overhead-us, and the
// measurement behind them under `measured:`, which readers skip), and its JSON result.
#include <nlohmann/json.hpp>
#include <string>

#include "calibrate/calibration_run.hpp"

namespace kvb {

inline constexpr const char* kCalibrateSchema = "kvbench/calibrate/v1";

// kvbench/calibrate/v1.
nlohmann::json calibration_json(const CalibrationResult& r);

// Reads it back (kvbench report). UsageError naming `origin` for efficiencies outside (0, 1] or a
// point without its figures; nlohmann::json::exception for a wrong shape.
CalibrationResult calibration_from_json(const nlohmann::json& doc, const std::string& origin);

// The calibration file; `date` goes into its header comment.
std::string calibration_yaml(const CalibrationResult& r, const std::string& date);

}  // namespace kvb
