#pragma once
// `kvbench simulate` printers: a table with the headline against no offloading, and JSON
// (schema kvbench/simulate/v1). They only read the SweepRun.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/sweep.hpp"

namespace kvb {

inline constexpr const char* kSimulateSchema = "kvbench/simulate/v1";

std::string simulate_text(const SweepRun& run);
nlohmann::json simulate_json(const SweepRun& run);

}  // namespace kvb
