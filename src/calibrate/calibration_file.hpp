#pragma once
// Reads `kvbench calibrate`'s JSON result (kvbench/calibrate/v1) back; output/calibrate/calibrate_documents
// writes it, and the calibration YAML.
#include <nlohmann/json.hpp>
#include <string>

#include "calibrate/calibration_run.hpp"

namespace kvb {

inline constexpr const char* kCalibrateSchema = "kvbench/calibrate/v1";

// Reads it back (kvbench report). UsageError naming `origin` for efficiencies outside (0, 1] or a
// point without its figures; nlohmann::json::exception for a wrong shape.
CalibrationResult calibration_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
