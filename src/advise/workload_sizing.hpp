#pragma once
// `kvbench size --workload`: the sizing of the scenario's server (its keys, overridden by the
// command's flags before this is called) with the CPU tier size from a simulation of its traffic.
#include <optional>

#include "advise/tier_objective.hpp"
#include "perf/link_curve.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "size/serve_settings.hpp"
#include "size/sizing.hpp"

namespace kvb {

struct WorkloadSizingRequest {
  Scenario scenario;
  NodeOverrides node;
  TierObjective objective = TierObjective::kThroughput;
  ServiceLevel slo{};
  std::optional<LinkProfile> link{};  // a link measured in this run (else node.link_profile, else the table's)
};

// The sizing as `size` computes it, its recommendation replaced by the simulated one (and the
// vLLM command with it). Where nothing can be simulated (the weights or one request do not fit),
// the sizing says why and keeps no recommendation.
Sizing size_with_workload(const WorkloadSizingRequest& request);

}  // namespace kvb
