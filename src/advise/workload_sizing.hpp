#pragma once
// `kvbench size --workload/--trace`: the sizing of the server the command's flags describe, with
// the CPU tier size from a simulation of the traffic on exactly that sizing (one build: the GPU
// pool simulated is the one printed, --gpu-memory and the other node overrides included).
#include <optional>
#include <string>

#include "advise/tier_objective.hpp"
#include "perf/link_curve.hpp"
#include "server/serve_settings.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "size/sizing.hpp"

namespace kvb {

// Draws per simulated tier size unless --seeds says otherwise: enough for a spread, three times
// one run's time.
inline constexpr int kDefaultSeeds = 3;
inline constexpr int kMaxSeeds = 100;

struct WorkloadSizingRequest {
  Scenario scenario;  // the traffic: its workload, or its trace
  // The server the flags describe. Given, the workload file's server keys (every key but name,
  // description, seed, workload and sweep) are not used, and the sizing's warnings name them:
  // a workload describes traffic. Absent: the scenario's server as it stands.
  std::optional<ServeSettings> serve{};
  std::optional<std::string> model{};     // --model; absent: the file's model key
  std::optional<std::string> hardware{};  // --hw; absent: the file's hardware key
  NodeOverrides node;
  FleetSpec fleet{};  // --replicas, --router: the tier is sized per replica of this fleet
  TierObjective objective = TierObjective::kBalanced;
  ServiceLevel slo{};
  int seeds = kDefaultSeeds;          // workload draws per tier size (size --seeds); a trace runs once
  int jobs = 1;                       // simulations at once (size --jobs); the answer does not depend on it
  std::optional<LinkProfile> link{};  // a link measured in this run (else node.link, else the table's)
};

// The sizing as `size` computes it, its recommendation replaced by the simulated one (and the
// vLLM command with it). Where nothing can be simulated (the weights or one request do not fit),
// the sizing says why and keeps no recommendation.
Sizing size_with_workload(const WorkloadSizingRequest& request);

// The server keys a scenario file sets that `size` does not use when the flags give the server.
std::vector<std::string> server_keys_in_file(const Scenario& s);

}  // namespace kvb
