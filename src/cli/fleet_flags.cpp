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

Scenario apply_fleet_flags(Scenario s, const FleetFlags& flags) {
  if (!flags.replicas.empty()) {
    const auto n =
        checked_replicas(parse_positive_int(flags.replicas, "--replicas", false, kMaxReplicas), "--replicas");
    s = with_override(s, "replicas", std::to_string(n), "--replicas");
  }
  if (!flags.router.empty()) {
    s = with_override(s, "router", to_string(parse_router(flags.router, "--router")), "--router");
  }
  return s;
}

}  // namespace kvb
