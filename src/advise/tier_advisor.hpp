#pragma once
// `kvbench size --workload`: the CPU tier size from a simulation of the operator's traffic.
// Sweeps the tier from none to the host-DRAM cap (a geometric grid, bisected at the knee; or the
// sizes a trace's miss-ratio curve names), all points on one workload draw, and recommends the
// smallest size that reaches 95% of the best gain in the objective, or none, with the reason, when
// nothing pays (tier_objective.hpp says what pays).
#include <optional>

#include "advise/secondary_advisor.hpp"
#include "advise/tier_objective.hpp"
#include "perf/link_curve.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "size/tier_recommendation.hpp"

namespace kvb {

struct TierAdviceRequest {
  Scenario scenario;  // server keys already merged with the command's flags
  std::optional<SimulationSetup>
      setup{};  // prepared from a sizing (size --workload); absent: from `scenario`
  TierObjective objective = TierObjective::kBalanced;
  ServiceLevel slo{};                 // goodput's targets
  double floor_gib = 0;               // the aggregate GPU KV pool (size's OffloadPlan::floor_gib)
  double cap_gib = 0;                 // the host-DRAM cap (size's OffloadPlan::cap_gib)
  std::optional<LinkProfile> link{};  // --link-profile, else the hardware table's
  int grid_points = 10;               // geometric sizes between the first and the cap
  int bisections = 3;                 // refinements between the knee and the size below it
  int seeds = 1;                      // workload draws per size (size --seeds); a trace runs once
  int jobs = 1;                       // simulations at once (size --jobs); the answer does not depend on it
  std::vector<int>
      candidates{};  // sizes to simulate instead of the grid (size --trace: the curve's), no bisection
  std::vector<AdviceStep> candidate_steps{};  // why those sizes: the first steps of the reasoning
  // --secondary-tier-size: the recommended CPU tier simulated again with it behind, on the same draws.
  std::optional<SecondaryAdviceRequest> secondary{};
};

// The tier sizes first simulated: none, then `points` sizes from about half the floor to the cap,
// geometric, whole GiB, ascending, without repeats.
std::vector<int> tier_size_grid(double floor_gib, double cap_gib, int points);

// Throws UsageError for a scenario that cannot run (the errors simulate gives).
TierRecommendation advise_tier_size(const TierAdviceRequest& request);

}  // namespace kvb
