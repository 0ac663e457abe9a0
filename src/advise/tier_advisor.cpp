#include "advise/tier_advisor.hpp"

#include <algorithm>
#include <cmath>

#include "advise/knee.hpp"
#include "advise/no_tier_verdict.hpp"
#include "advise/tier_curve.hpp"
#include "core/interrupt.hpp"
#include "sim/simulation_setup.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

constexpr double kKneeShare = 0.95;        // the knee: the smallest size with 95% of the best gain
constexpr double kWorseGain = -0.02;       // a point this much worse than no tier is reported
constexpr double kOverloadTtftP50 = 30.0;  // s: a median first token this late is a queue, not a prefill
// The knee check: the no-tier point on a pool this much smaller and larger; a change in output tok/s
// beyond kPoolKneeSwing either way (more than the pool's own change, and far more than the tier's
// modelled costs) says the server sits on a knee of its GPU pool.
constexpr double kPoolStep = 0.10;
constexpr double kPoolKneeSwing = 0.15;
constexpr double kMinCpuHits =
    0.001;  // a best point with fewer CPU hits (share of prompt tokens) gains by chance

// The knee the objective picks on the curve, or none when nothing pays. A gain with (almost) no
// CPU hits is not the tier's doing: scheduling noise in a tail.
std::optional<Knee> judged_knee(const std::vector<TierCurvePoint>& curve, const JudgedCurve& j) {
  auto knee = find_knee(j.knee_gains, kKneeShare, j.pays_gain);
  if (knee && curve[knee->best_index].cpu_hit_rate < kMinCpuHits) knee.reset();
  return knee;
}

void store_gains(TierRecommendation& rec, const JudgedCurve& j) {
  for (std::size_t i = 0; i < j.gains.size(); ++i) {
    rec.curve[i].gain = j.gains[i];
    rec.curve[i].gain_spread = j.spreads[i];
  }
  rec.decided_by = j.metric;
}

const ExpectedError* expected_of(const TierRecommendation& rec) {
  return rec.expected ? &*rec.expected : nullptr;
}

// The best size the objective would pay for were the simulation's stated error not counted (`bare`:
// the curve judged without it): its gain is within that error.
std::optional<WithinModelErrorVerdict> within_model_error(const std::vector<TierCurvePoint>& curve,
                                                          const JudgedCurve& bare, const JudgedCurve& j) {
  if (!j.model_error) return std::nullopt;
  const auto knee = judged_knee(curve, bare);
  if (!knee) return std::nullopt;
  const auto i = knee->best_index;
  return WithinModelErrorVerdict{.gib = curve[i].kv_offloading_size_gib,
                                 .gain = bare.gains[i],
                                 .spread = bare.spreads[i],
                                 .model_error = *j.model_error,
                                 .cpu_hit_rate = curve[i].cpu_hit_rate,
                                 .metric = bare.metric};
}

// No size pays: the reason, and what the other objectives would make of the same curve.
void explain_no_tier(TierRecommendation& rec, const TierAdviceRequest& req, const JudgedCurve& j) {
  rec.pays = false;
  rec.kv_offloading_size_gib = 0;
  rec.bound = TierBound::kNone;
  rec.gain = 0;
  // The best gain as judged before the model's error is counted: the figure the step states.
  const auto bare = judge_curve(rec.curve, req.objective);
  double best = 0;
  for (std::size_t i = 1; i < bare.knee_gains.size(); ++i) best = std::max(best, bare.knee_gains[i]);
  std::optional<double> within_error;
  if (rec.curve.size() < 2) {
    rec.verdict = NoRoomVerdict{.cap_gib = req.cap_gib};
  } else if (const auto noise = within_model_error(rec.curve, bare, j)) {
    rec.verdict = *noise;
    best = noise->gain;
    within_error = noise->model_error;
  } else {
    rec.verdict = why_it_does_not_pay(rec.curve, req.objective);
    rec.costs = std::holds_alternative<TierCostsVerdict>(*rec.verdict);
  }
  rec.steps.push_back(NoTierStep{.best_gain = best,
                                 .metric = j.metric,
                                 .objective = req.objective,
                                 .without_cpu_hits = !within_error && best >= j.pays_gain,
                                 .model_error = within_error});
  for (auto other : {TierObjective::kBalanced, TierObjective::kTtftP99, TierObjective::kThroughput}) {
    if (other == req.objective || req.objective == TierObjective::kBalanced) continue;
    const auto alt = judge_curve(rec.curve, other, expected_of(rec));
    if (const auto k = judged_knee(rec.curve, alt)) {
      rec.steps.push_back(OtherObjectiveStep{.objective = other,
                                             .metric = alt.metric,
                                             .gib = rec.curve[k->index].kv_offloading_size_gib,
                                             .gain = alt.gains[k->index]});
    }
  }
}

// A tier that makes things worse somewhere: store traffic or reload convoys on the link.
void note_worst_point(TierRecommendation& rec, TierObjective metric) {
  std::size_t worst = 0;
  for (std::size_t i = 1; i < rec.curve.size(); ++i) {
    if (rec.curve[i].gain < rec.curve[worst].gain) worst = i;
  }
  if (worst > 0 && rec.curve[worst].gain < kWorseGain) {
    const auto& w = rec.curve[worst];
    rec.steps.push_back(WorsePointStep{.gib = w.kv_offloading_size_gib,
                                       .gain = w.gain,
                                       .h2d_utilization = w.h2d_utilization,
                                       .d2h_utilization = w.d2h_utilization,
                                       .metric = metric});
  }
}

// Requests that wait minutes for their first token mean the traffic is more than one server takes:
// every size then answers for a queue, not for the tier. Said first, with the way out.
void note_overload(TierRecommendation& rec, const Scenario& scenario) {
  const auto& none = rec.curve.front();
  if (none.ttft_p50_s < kOverloadTtftP50) return;
  rec.steps.insert(rec.steps.begin(),
                   OverloadedStep{.ttft_p50_s = none.ttft_p50_s, .trace = scenario.trace.has_value()});
}

// Simulates the grid (or the given candidates), then bisects between the knee and the size below it
// so the knee is not a grid artefact.
void simulate_sizes(TierCurve& sim, const TierAdviceRequest& req) {
  const auto expected = sim.expected_error();
  if (!req.candidates.empty()) {
    auto sizes = req.candidates;
    sizes.insert(sizes.begin(), 0);
    sim.simulate(sizes);
    return;
  }
  sim.simulate(tier_size_grid(req.floor_gib, req.cap_gib, req.grid_points));
  for (int step = 0; step < req.bisections; ++step) {
    const auto curve = sim.points();
    const auto knee = judged_knee(curve, judge_curve(curve, req.objective, &expected));
    if (!knee || knee->index < 2) break;
    const int below = static_cast<int>(curve[knee->index - 1].kv_offloading_size_gib);
    const int at = static_cast<int>(curve[knee->index].kv_offloading_size_gib);
    if (at - below <= 1) break;
    sim.at(below + (at - below) / 2);
  }
}

// The knee pays: it is the recommendation, raised to vLLM's floor where it sits at or below it.
void recommend_knee(TierRecommendation& rec, TierCurve& sim, const TierAdviceRequest& req, const Knee& knee,
                    JudgedCurve& j) {
  const TierCurvePoint at = rec.curve[knee.index];
  const TierCurvePoint none = rec.curve.front();
  rec.pays = true;
  rec.kv_offloading_size_gib = at.kv_offloading_size_gib;
  rec.gain = j.gains[knee.index];
  rec.bound = TierBound::kKnee;
  rec.verdict = KneeVerdict{.gib = at.kv_offloading_size_gib,
                            .share_of_best = rec.gain / knee.best_gain,
                            .best_gain = knee.best_gain,
                            .best_gib = rec.curve[knee.best_index].kv_offloading_size_gib,
                            .cpu_hit_rate = at.cpu_hit_rate,
                            .metric = j.metric};
  const bool still_rising = knee.index + 1 == rec.curve.size() && knee.index >= 2 &&
                            j.knee_gains[knee.index - 1] < kKneeShare * knee.best_gain;
  if (const double raised = raise_to_floor(rec.kv_offloading_size_gib, req.floor_gib, req.cap_gib);
      raised != rec.kv_offloading_size_gib) {
    rec.kv_offloading_size_gib = raised;
    rec.bound = TierBound::kFloor;
    const auto& p = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
    rec.gain = objective_gains({none, p}, j.metric)[1];
    rec.steps.push_back(RaisedToFloorStep{.knee_gib = at.kv_offloading_size_gib,
                                          .floor_gib = req.floor_gib,
                                          .raised_gib = rec.kv_offloading_size_gib});
    rec.curve = sim.points();
    j = judge_curve(rec.curve, req.objective, expected_of(rec));
    store_gains(rec, j);
  } else if (still_rising) {
    rec.bound = TierBound::kDramCap;
    rec.steps.push_back(StillRisingStep{.cap_gib = req.cap_gib});
  }
  const TierCurvePoint chosen = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
  for (const auto& c : rec.curve) {
    if (c.kv_offloading_size_gib == rec.kv_offloading_size_gib) rec.gain_spread = c.gain_spread;
  }
  RecommendStep step{.gib = rec.kv_offloading_size_gib,
                     .gain = rec.gain,
                     .gain_spread = rec.gain_spread,
                     .metric = j.metric,
                     .seeds = rec.seeds,
                     .bound = rec.bound,
                     .ttft_p99_none_s = none.ttft_p99_s,
                     .ttft_p99_s = chosen.ttft_p99_s,
                     .output_tokens_per_s_none = none.output_tokens_per_s,
                     .output_tokens_per_s = chosen.output_tokens_per_s,
                     .cpu_hit_rate = chosen.cpu_hit_rate,
                     .goodput_none_rps = std::nullopt,
                     .goodput_rps = std::nullopt,
                     .unscored = j.unscored};
  if (req.objective == TierObjective::kGoodput) {
    step.goodput_none_rps = none.goodput_rps;
    step.goodput_rps = chosen.goodput_rps;
  }
  rec.steps.push_back(step);
}

// Run after the curve (inside its interruption guard): the step when the server sits on a knee.
std::optional<PoolKneeStep> pool_knee(const TierCurve& sim, double none_tokens_per_s) {
  if (none_tokens_per_s <= 0) return std::nullopt;
  const bool smaller = sim.pool_holds_max_model_len(1 - kPoolStep);
  const auto tokens_per_s = sim.no_tier_throughput_with_pools(
      smaller ? std::vector<double>{1 + kPoolStep, 1 - kPoolStep} : std::vector<double>{1 + kPoolStep});
  PoolKneeStep knee{.pool_step = kPoolStep,
                    .gpu_blocks = sim.gpu_blocks(),
                    .smaller = std::nullopt,
                    .larger = tokens_per_s[0] / none_tokens_per_s - 1};
  if (smaller) knee.smaller = tokens_per_s[1] / none_tokens_per_s - 1;
  if (std::max(-knee.smaller.value_or(0), knee.larger) < kPoolKneeSwing) return std::nullopt;
  return knee;
}

}  // namespace

std::vector<int> tier_size_grid(double floor_gib, double cap_gib, int points) {
  std::vector<int> sizes{0};
  const double hi = std::floor(cap_gib);
  if (hi < 1) return sizes;
  const double lo = std::min(hi, std::max(1.0, std::round(floor_gib / 2)));
  const int n = std::max(2, points);
  for (int i = 0; i < n; ++i) {
    const double gib = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
    const int whole = static_cast<int>(std::clamp(std::round(gib), 1.0, hi));
    if (whole > sizes.back()) sizes.push_back(whole);
  }
  return sizes;
}

TierRecommendation advise_tier_size(const TierAdviceRequest& req) {
  auto scenario = req.scenario;
  scenario.server.kv_offloading_size.reset();
  SimOptions options;
  options.slo = req.slo;
  options.jobs = req.jobs;
  auto base = req.setup ? *req.setup : prepare_simulation(scenario, req.link);
  base.offloading = false;
  base.scenario.server.kv_offloading_size.reset();
  // A trace is one traffic: its draws would be the same run (only a router's ties differ).
  const int draws = scenario.trace ? 1 : std::max(1, req.seeds);
  TierCurve sim(std::move(base), options, draws);
  TierRecommendation rec;
  rec.seeds = draws;
  rec.basis = RecommendationBasis::kSimulation;
  rec.objective = req.objective;
  rec.floor_gib = req.floor_gib;
  rec.cap_gib = req.cap_gib;
  rec.workload = scenario.name;
  rec.requests = scenario.workload.requests;
  rec.steps = req.candidate_steps;
  rec.expected = sim.expected_error();
  std::optional<PoolKneeStep> knee_of_pool;
  try {
    simulate_sizes(sim, req);
    knee_of_pool = pool_knee(sim, sim.at(0).output_tokens_per_s);
  } catch (const Interrupted&) {
    // A partial curve can put the knee anywhere: keep the sizes simulated, recommend none.
    rec.curve = sim.points();
    rec.requests = sim.requests();
    rec.pays = false;
    rec.bound = TierBound::kInterrupted;
    rec.verdict = InterruptedVerdict{
        .signal = interrupt_signal_name(), .gib = sim.running_gib(), .sizes = rec.curve.size()};
    return rec;
  }
  rec.requests = sim.requests();
  rec.curve = sim.points();
  auto judged = judge_curve(rec.curve, req.objective, expected_of(rec));
  store_gains(rec, judged);
  note_overload(rec, scenario);
  const auto knee = judged_knee(rec.curve, judged);
  rec.steps.push_back(SimulatedStep{
      .sizes = rec.curve.size(),
      .workload = rec.workload,
      .requests = rec.requests,
      .draws = draws,
      .cap_gib = req.cap_gib,
      .judged_on = req.objective == TierObjective::kBalanced ? std::optional(judged.metric) : std::nullopt});
  if (knee) {
    recommend_knee(rec, sim, req, *knee, judged);
  } else {
    explain_no_tier(rec, req, judged);
  }
  note_worst_point(rec, judged.metric);
  if (knee_of_pool) rec.steps.push_back(*knee_of_pool);
  if (req.secondary) rec.secondary = advise_secondary_tier(sim, rec, *req.secondary, req.objective);
  return rec;
}

}  // namespace kvb
