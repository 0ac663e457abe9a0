#pragma once
// The recommended CPU tier size and how it was reached: from a simulation of the operator's
// traffic (advise/tier_advisor) or, without a workload, from the sizing rule (offload_plan).
// Data only: size/ writes it, advise/ fills the simulated kind, output/ and report/ word it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/fleet_spec.hpp"
#include "perf/calibration.hpp"
#include "size/pinning_cost.hpp"
#include "size/router_capacity.hpp"
#include "size/secondary_tier_advice.hpp"
#include "size/tier_advice_facts.hpp"
#include "size/tier_terms.hpp"

namespace kvb {

// One simulated tier size of a recommendation's curve. Computed by the simulator, not measured.
struct TierCurvePoint {
  double kv_offloading_size_gib = 0;
  double output_tokens_per_s = 0;
  double ttft_p50_s = 0;
  double ttft_p99_s = 0;
  double cpu_hit_rate = 0;
  double gpu_hit_rate = 0;
  double goodput_rps = 0;  // requests meeting the SLOs per second (objective goodput)
  double h2d_utilization = 0;
  double d2h_utilization = 0;
  double engine_busy_share = 0;  // engine step time / makespan (a fleet: / replicas, 0..1)
  double gain = 0;               // in the deciding metric (TierRecommendation::decided_by), vs no tier
  // What the tier cost the engine: the mechanism that added the most step time (a name of
  // sim/tier_costs.hpp's table; empty without a tier or a cost) and its share of the engine time.
  std::string costliest_mechanism;
  double costliest_share = 0;
  // A fleet (size --replicas): the busiest replica's TTFT p99 and the spread of the replicas'
  // prefix hit rates (GPU + CPU tier); 0 for one engine.
  double busiest_ttft_p99_s = 0;
  double replica_hit_rate_min = 0, replica_hit_rate_max = 0;
  // Over several workload draws (size --seeds): the figures above are the draws' means; the range
  // of the two judged metrics, and the gain's spread: half the range of the draws' own gains in the
  // deciding metric, each draw against its own no-tier point (0 for one draw).
  double output_tokens_per_s_min = 0, output_tokens_per_s_max = 0;
  double ttft_p99_min_s = 0, ttft_p99_max_s = 0;
  double gain_spread = 0;
  // Each draw's figures, for the paired gains (not written to JSON: the spread is).
  std::vector<double> draw_output_tokens_per_s, draw_ttft_p99_s, draw_goodput_rps;
};

// size --replicas: the tier simulated on a fleet. The size is per replica (each engine's
// --kv-offloading-size); the host memory follows from the replicas sharing each node.
struct FleetTier {
  FleetSpec fleet;
  int replicas_per_node = 1;  // engines of TP x PP GPUs on one node of the hardware's GPUs per node
  int nodes = 1;
  double host_bytes_per_replica = 0;  // the recommended tier's real footprint (host_memory)
  double host_bytes_per_node = 0;
  double host_bytes_total = 0;
  // The same traffic behind another router (round-robin, or prefix-aware when this one is
  // round-robin): its own recommendation, simulated the same way.
  std::optional<RouterKind> compared_router;
  double compared_gib = 0;
  bool compared_pays = false;
  double compared_gain = 0;
  std::optional<TierObjective> compared_metric;  // what compared_gain is in
  // What llm-d's approximate prefix producer needs per replica (size/router_capacity.hpp).
  std::optional<RouterCapacities> router_capacities;
};

struct TierRecommendation {
  RecommendationBasis basis = RecommendationBasis::kRule;
  std::optional<TierObjective> objective;   // simulation only
  std::optional<TierObjective> decided_by;  // the metric the gains are in (balanced: the one that moved most)
  // THE recommended --kv-offloading-size, total across ranks, in whole GiB; 0 = do not offload.
  // Every figure of the tier (blocks, per-rank GiB, host footprint, commands) follows from it.
  double kv_offloading_size_gib = 0;
  bool pays = true;
  bool costs = false;  // simulation: a tier size loses throughput against none (`why` says how much, and why)
  double gain = 0;     // at the recommended size, in the objective
  double gain_spread = 0;  // its spread over the draws (TierCurvePoint::gain_spread)
  int seeds = 1;           // workload draws per size (a trace is one traffic: 1)
  // The verdict (one line: why this size, or why none) and the steps that led there, as facts
  // (tier_advice_facts.hpp): written to and read from the document as facts (size/tier_advice_json),
  // worded by output/size/tier_advice_text. The rule has a verdict and no steps: its steps follow
  // from OffloadPlan::rule (output/size/offload_rule_text).
  std::optional<TierVerdict> verdict;
  std::vector<AdviceStep> steps;
  TierBound bound = TierBound::kRule;
  double floor_gib = 0;  // vLLM's floor: the aggregate GPU KV pool, which a smaller tier only mirrors
  double cap_gib = 0;    // the host-DRAM cap
  std::string workload;  // the simulated scenario
  // The simulator against real vLLM servers, for this calibration (an older document's words as
  // ExpectedError::recorded).
  std::optional<ExpectedError> expected;
  long long requests = 0;  // requests per simulated point (one workload draw for all points)
  std::vector<TierCurvePoint> curve;
  // size --trace: the trace's miss-ratio curve in this server's GiB, (size, prefix hit rate),
  // counted from the trace, not simulated: drawn beside the simulated hit rates.
  std::vector<std::pair<double, double>> trace_curve;
  // Start-up: pinning the tier at every server start (size/pinning_cost.hpp).
  double pin_seconds_low = 0;
  double pin_seconds_high = 0;
  std::optional<PinningCost> pinning;  // the figures and their source (output/ words them); none in
                                       // a document written before they were recorded
  std::optional<FleetTier> fleet;      // size --replicas
  // size --workload/--trace --secondary-tier-size: whether a secondary tier pays behind this tier.
  std::optional<SecondaryTierAdvice> secondary;

  bool simulated() const { return basis == RecommendationBasis::kSimulation; }
};

}  // namespace kvb
