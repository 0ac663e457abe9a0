#pragma once
// A simulation run as its kvbench/simulate/v1 document (sim/sim_json.hpp), with its notes worded
// by output/simulate/sim_notes_text: what `simulate --json` and the report's default assessment write.
#include <nlohmann/json.hpp>

#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"

namespace kvb {

SimulateDocument simulate_document(const SweepRun& run);
nlohmann::json simulate_json(const SweepRun& run);  // simulate_json(simulate_document(run))

}  // namespace kvb
