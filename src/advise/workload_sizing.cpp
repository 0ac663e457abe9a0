#include "advise/workload_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "advise/served_traffic.hpp"
#include "advise/tier_advisor.hpp"
#include "advise/trace_candidates.hpp"
#include "catalog/model_catalog.hpp"
#include "core/interrupt.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"
#include "sim/simulation_setup.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "trace/tier_levels.hpp"
#include "trace/trace_analysis.hpp"

namespace kvb {
namespace {

// The scenario's traffic on the flags' server: simulator-only keys at vLLM's defaults.
Scenario on_flags_server(const WorkloadSizingRequest& r, std::vector<SizingWarning>& warnings) {
  auto scenario = r.scenario;
  if (!r.serve) return with_fleet(scenario, r.fleet);
  if (const auto ignored = server_keys_in_file(scenario); !ignored.empty()) {
    warnings.push_back(WorkloadServerKeysIgnored{
        .workload = scenario.name,
        .keys = ignored,
        .simulate_as =
            scenario.origin.rfind("scenarios/workloads/", 0) == 0 ? scenario.name : scenario.origin});
  }
  ServerSpec server;
  static_cast<ServeSettings&>(server) = *r.serve;
  server.model = r.model.value_or(scenario.server.model);
  server.hardware = r.hardware.value_or(scenario.server.hardware);
  scenario = with_server(scenario, server);  // checked as a file's server keys are
  scenario.calibration.reset();  // the file's calibration is a server key too: --calibration gives the flags'
  return with_fleet(scenario, r.fleet);  // the flags' fleet (one engine without --replicas), not the file's
}

// size --trace: the curve the recommendation shows, (GiB, prefix hit rate) up to the cap, and on one
// engine the exact curve behind it, with a trace block's GiB on this server (the secondary tier's count).
struct TraceCurve {
  std::vector<std::pair<double, double>> gib;
  std::optional<HitCurve> hits;
  double gib_per_block = 0;
};

// size --trace: the candidate sizes from the trace's miss-ratio curve, in this server's GiB; on a
// fleet, from the curve of each replica's own cache under the router (least-loaded needs service
// times the trace lacks: its candidates come from round-robin's split, equal loads, and it is said).
TraceCurve add_trace_candidates(TierAdviceRequest& advice, const Scenario& scenario, const SizingPlan& s) {
  auto fleet = scenario.fleet;
  const bool least_loaded = fleet.replicas > 1 && fleet.router == RouterKind::kLeastLoaded;
  if (least_loaded) fleet.router = RouterKind::kRoundRobin;
  auto analysis = analyze_trace(scenario.trace->path, scenario.trace->options, 200, fleet);
  if (analysis.interrupted) throw Interrupted();  // no candidate sizes from part of the trace
  if (fleet.replicas > 1) {
    // The replicas' own caches: their curve, and their unbounded rate weighted by prompt tokens.
    analysis.curve = analysis.fleet_curve;
    double hit = 0, tokens = 0;
    for (const auto& r : analysis.replicas) {
      hit += r.unbounded_prefix_hit_rate * r.prompt_tokens;
      tokens += r.prompt_tokens;
    }
    analysis.unbounded_prefix_hit_rate = tokens > 0 ? hit / tokens : 0;
  }
  const double bytes_per_token = static_cast<double>(s.offload->cpu_block_bytes) / s.layout.block_size;
  const double gib_per_block =
      static_cast<double>(scenario.trace->options.block_tokens) * bytes_per_token / kGiB;
  auto c = trace_candidates(analysis, gib_per_block, s.offload->floor_gib, s.offload->cap_gib);
  advice.candidates = std::move(c.sizes_gib);
  if (fleet.replicas > 1) {
    advice.candidate_steps.push_back(FleetCandidatesStep{
        .replicas = fleet.replicas, .router = fleet.router, .least_loaded_stand_in = least_loaded});
  }
  if (c.curve_step) {
    advice.candidate_steps.push_back(*c.curve_step);
    advice.candidate_steps.push_back(std::move(c.picked));
  }
  TraceCurve out{std::move(c.curve_gib), std::nullopt, gib_per_block};
  // A fleet's replicas each have their own stack; a format without reuse has no curve to read.
  if (fleet.replicas <= 1 && analysis.reuse_recorded) out.hits = std::move(analysis.hits);
  return out;
}

// size --trace --secondary-tier-size: the stated tier behind the recommended CPU tier, GPU pool in
// front (size's floor), on the trace's two-level curve: beside the simulated verdict.
void add_curve_shares(SecondaryTierAdvice& a, const TraceCurve& t, double gpu_pool_gib) {
  if (!t.hits || a.verdict == SecondaryVerdict::kNoCpuTier || a.cpu_gib <= 0 || t.gib_per_block <= 0) return;
  const auto blocks = [&](double gib) {
    return static_cast<std::int64_t>(std::floor(gib / t.gib_per_block + 1e-9));  // whole blocks fit
  };
  const auto s = tier_shares(*t.hits, {blocks(gpu_pool_gib), blocks(a.stated_gib)}, blocks(a.cpu_gib));
  a.trace_curve = SecondaryCurveShares{s.gpu, s.cpu, s.secondary};
}

// The secondary tier's disk-against-recompute figures: size's reload of a max-model-len prefix.
void add_reload(std::optional<SecondaryAdviceRequest>& secondary, const SizingPlan& s) {
  if (!secondary || !s.reload) return;
  secondary->prefix_tokens = s.reload->tokens;
  secondary->block_size = s.layout.block_size;
  secondary->reload_s = s.reload->reload_s;
  secondary->recompute_s = s.reload->recompute_s;
}

// The other router a fleet's tier is compared with: round-robin, or prefix-aware for round-robin.
RouterKind compared_router(RouterKind r) {
  return r == RouterKind::kRoundRobin ? RouterKind::kPrefixAware : RouterKind::kRoundRobin;
}

// size --replicas: the per-replica tier's host memory over the fleet's nodes, and the same traffic
// behind the other router, recommended the same way. `tier`: the plan's, with the simulated size.
FleetTier fleet_tier(const SizingPlan& s, const OffloadPlan& tier, const SizingInputs& in,
                     TierAdviceRequest advice, const FleetSpec& fleet) {
  FleetTier f;
  f.fleet = fleet;
  const int per_node = in.hw.gpus_per_node / std::max(1, s.server.world_size());
  f.replicas_per_node = std::clamp(per_node, 1, fleet.replicas);
  // A replica wider than a node spans whole nodes, each holding its share of the tier.
  const int nodes_per_replica =
      per_node >= 1 ? 1 : (s.server.world_size() + in.hw.gpus_per_node - 1) / in.hw.gpus_per_node;
  f.nodes = per_node >= 1 ? (fleet.replicas + f.replicas_per_node - 1) / f.replicas_per_node
                          : fleet.replicas * nodes_per_replica;
  const auto& host = tier.host_memory;
  f.host_bytes_per_replica = host && tier.recommended_gib() > 0 ? host->total_bytes() : 0;
  f.host_bytes_per_node = f.host_bytes_per_replica * f.replicas_per_node / nodes_per_replica;
  f.host_bytes_total = f.host_bytes_per_replica * fleet.replicas;
  f.router_capacities = llmd_router_capacities(s, &tier);
  if (fleet.replicas > 1) {
    const auto other = compared_router(fleet.router);
    advice.scenario = with_fleet(advice.scenario, FleetSpec{fleet.replicas, other});
    if (advice.setup) advice.setup->scenario.fleet.router = other;
    const auto rec = advise_tier_size(advice);
    f.compared_router = other;
    f.compared_gib = rec.kv_offloading_size_gib;
    f.compared_pays = rec.pays;
    f.compared_gain = rec.gain;
    f.compared_metric = rec.decided_by;
  }
  return f;
}

// --secondary-tier-size: the stated tier's figures, refused now (one line, before any simulation)
// where the simulator would not run it. The scenario keeps no secondary tier: the CPU tier's sweep
// runs without one, as size without the flag does.
std::optional<SecondaryAdviceRequest> take_secondary(Scenario& scenario) {
  const ServerSpec v = scenario.server;
  if (!v.secondary_tier_size || *v.secondary_tier_size <= 0) return std::nullopt;
  SecondaryAdviceRequest req;
  req.stated_gib = *v.secondary_tier_size;
  ServerSpec probe = v;
  probe.kv_offloading_size = 1;  // the CPU tier is the advisor's to choose: any size checks the rest
  req.figures = *secondary_tier_figures(with_server(scenario, probe), 1);
  ServerSpec without = v;
  without.secondary_tier_size.reset();
  scenario = with_server(scenario, without);
  return req;
}

// The plan's tier simulated under the traffic, its fleet's figures beside it, and then the
// commands, once, for the simulated size (they read its size and secondary tier, not the fleet).
Sizing with_simulated_tier(SizingPlan s, SizingInputs in, const Scenario& scenario,
                           const WorkloadSizingRequest& request,
                           std::optional<SecondaryAdviceRequest> secondary) {
  if (!scenario.trace)
    require_requests_per_replica(scenario.workload.requests, scenario);  // before the pools
  TierAdviceRequest advice{.scenario = scenario,
                           .setup = prepare_simulation(scenario, in, s, std::nullopt),
                           .objective = request.objective,
                           .slo = request.slo,
                           .floor_gib = s.offload->floor_gib,
                           .cap_gib = s.offload->cap_gib,
                           .link = in.link,
                           .seeds = request.seeds,
                           .jobs = request.jobs};
  add_reload(secondary, s);
  advice.secondary = secondary;
  TraceCurve trace_curve;
  if (scenario.trace) trace_curve = add_trace_candidates(advice, scenario, s);
  auto rec = advise_tier_size(advice);
  rec.trace_curve = std::move(trace_curve.gib);
  if (rec.secondary) add_curve_shares(*rec.secondary, trace_curve, s.offload->floor_gib);
  // The commands write the secondary tier where it pays, at the capacity recommended.
  if (rec.secondary && rec.secondary->pays()) in.secondary_tier_gib = rec.secondary->recommended_gib;
  auto tier = with_recommendation(*s.offload, s, in, std::move(rec));
  advice.secondary.reset();  // the fleet's other router is compared on its CPU tier alone
  if (scenario.fleet.replicas > 1 && tier.recommendation.bound != TierBound::kInterrupted)
    tier.recommendation.fleet = fleet_tier(s, tier, in, advice, scenario.fleet);
  return with_commands(std::move(s), in, std::move(tier));
}

}  // namespace

std::vector<std::string> server_keys_in_file(const Scenario& s) {
  std::vector<std::string> keys;
  for (const auto& key : s.file_keys) {
    if (key == "name" || key == "description" || key == "seed" || key == "workload" || key == "sweep" ||
        key == "model" || key == "hardware") {
      continue;
    }
    keys.push_back(key);
  }
  return keys;
}

Sizing size_with_workload(const WorkloadSizingRequest& request) {
  CallerFacts caller;
  auto scenario = on_flags_server(request, caller.warnings);
  auto secondary = take_secondary(scenario);
  std::vector<std::string> model_warnings;
  const auto model = resolve_model(scenario.server.model, model_warnings);
  const auto hw = resolve_hardware(scenario.server.hardware);
  auto in = make_sizing_inputs(model, hw, scenario.server, request.node);
  if (request.link) in.link = request.link;
  if (scenario.calibration) in.calibration = *scenario.calibration;
  // --tp auto is resolved once, so the simulator's step model runs at the same TP as the sizing.
  scenario = with_resolved_parallelism(scenario, in);
  for (const auto& w : model_warnings)
    caller.notes.emplace_back(std::in_place_type<CatalogNote>, CatalogNote{w});
  caller.workload = scenario.name;  // a plan with no tier to simulate says so
  auto plan = plan_sizing(in, std::move(caller));
  if (!plan.simulable()) {
    // A tier planned for the suggested shorter context keeps the rule's size (the plan says why).
    if (secondary) in.secondary_tier_gib = secondary->stated_gib;  // its configuration, as without a traffic
    return with_commands(std::move(plan), in);
  }
  return with_simulated_tier(std::move(plan), std::move(in), scenario, request, std::move(secondary));
}

}  // namespace kvb
