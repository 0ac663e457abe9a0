#pragma once
// A simulation run as its kvbench/simulate/v1 document (sim/sim_json.hpp), with its notes worded
// by output/simulate/sim_notes_text: what `simulate --json` and the report's default assessment write.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"

namespace kvb {

SimulateDocument simulate_document(const SweepRun& run);
nlohmann::json simulate_json(const SweepRun& run);  // simulate_json(simulate_document(run))

// A document's link and step model in words: worded from the facts, as simulate's text words a
// live run, or an older document's words as written.
std::string link_words(const SimulateDocument& d);
std::string time_model_words(const SimulateDocument& d);

}  // namespace kvb
