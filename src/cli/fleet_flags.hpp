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
// `base` with the flags given applied (checked: exit 2 naming the flag).
FleetSpec fleet_from_flags(const FleetFlags& flags, FleetSpec base = {});
// The scenario on the flags' fleet (sim/scenario.hpp with_fleet); unchanged where neither is given.
Scenario apply_fleet_flags(Scenario s, const FleetFlags& flags);

}  // namespace kvb
