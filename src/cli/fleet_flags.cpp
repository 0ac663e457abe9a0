#include "cli/fleet_flags.hpp"

#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {

void add_fleet_flags(CLI::App* app, FleetFlags& flags) {
  app->add_option("--replicas", flags.replicas,
                  "identical vLLM replicas behind one router, each with its own GPU cache and CPU tier "
                  "(default 1; docs/simulate.md)");
  app->add_option("--router", flags.router,
                  "how the router picks a replica: " + join(router_names(), ", ") + " (default round-robin)");
}

FleetSpec fleet_from_flags(const FleetFlags& flags, FleetSpec base) {
  if (!flags.replicas.empty()) {
    base.replicas =
        checked_replicas(parse_positive_int(flags.replicas, "--replicas", false, kMaxReplicas), "--replicas");
  }
  if (!flags.router.empty()) base.router = parse_router(flags.router, "--router");
  return base;
}

Scenario apply_fleet_flags(Scenario s, const FleetFlags& flags) {
  if (flags.replicas.empty() && flags.router.empty()) return s;
  return with_fleet(s, fleet_from_flags(flags, s.fleet));
}

}  // namespace kvb
