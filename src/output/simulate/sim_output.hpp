#pragma once
// `kvbench simulate`'s table, with the headline against no offloading (the JSON document is
// sim/sim_json.hpp). It only reads the SweepRun.
#include <string>

#include "sim/sweep.hpp"

namespace kvb {

std::string simulate_text(const SweepRun& run);

}  // namespace kvb
