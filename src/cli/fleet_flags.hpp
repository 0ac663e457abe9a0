#pragma once
// --replicas and --router: the fleet flags simulate and size share (sim/fleet_spec.hpp).
#include <CLI/CLI.hpp>
#include <string>

#include "sim/scenario.hpp"

namespace kvb {

struct FleetFlags {
  std::string replicas;
  std::string router;
};

void add_fleet_flags(CLI::App* app, FleetFlags& flags);
// The scenario with the flags written into its `replicas` and `router` keys (re-read, so every
// sweep point keeps them); unchanged where neither is given.
Scenario apply_fleet_flags(Scenario s, const FleetFlags& flags);

}  // namespace kvb
