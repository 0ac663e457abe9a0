#include "advise/tier_advisor.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "advise/knee.hpp"
#include "advise/served_traffic.hpp"
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

TierCurvePoint curve_point(double gib, const SimResult& r) {
  TierCurvePoint p;
  p.kv_offloading_size_gib = gib;
  p.output_tokens_per_s = r.output_tokens_per_s;
  p.ttft_p50_s = r.ttft_s.p50;
  p.ttft_p99_s = r.ttft_s.p99;
  p.cpu_hit_rate = r.cpu_hit_rate;
  p.gpu_hit_rate = r.gpu_hit_rate;
  const double span = r.makespan_s > 0 ? r.makespan_s : 1.0;
  p.goodput_rps = static_cast<double>(r.slo_met_requests) / span;
  p.h2d_utilization = r.h2d_utilization;
  p.d2h_utilization = r.d2h_utilization;
  // A fleet's busy time is its engines' sum: over the replicas' makespans, a share in 0..1 (the mean
  // replica's), not a sum past 1 that no reader can take for a share.
  const double engines = r.replicas.empty() ? 1.0 : static_cast<double>(r.replicas.size());
  p.engine_busy_share = r.engine_busy_s / (span * engines);
  if (!r.replicas.empty()) {
    p.replica_hit_rate_min = 1;
    for (const auto& rep : r.replicas) {
      p.busiest_ttft_p99_s = std::max(p.busiest_ttft_p99_s, rep.ttft_s.p99);
      const double hits = rep.gpu_hit_rate + rep.cpu_hit_rate;
      p.replica_hit_rate_min = std::min(p.replica_hit_rate_min, hits);
      p.replica_hit_rate_max = std::max(p.replica_hit_rate_max, hits);
    }
  }
  for (int i = 0; i < kTierCostCount; ++i) {
    const double share =
        r.engine_busy_s > 0 ? r.tier_cost_s[static_cast<std::size_t>(i)] / r.engine_busy_s : 0;
    if (share > p.costliest_share) {
      p.costliest_share = share;
      p.costliest_mechanism = to_string(static_cast<TierCost>(i));
    }
  }
  return p;
}

// The draws' mean at one size, with the range of the judged metrics and each draw's figures kept
// for the paired gains (tier_objective.cpp).
TierCurvePoint mean_of_draws(const std::vector<TierCurvePoint>& draws) {
  TierCurvePoint m = draws.front();  // the first draw's mechanism names the cost
  if (draws.size() == 1) return m;
  const auto n = static_cast<double>(draws.size());
  const auto mean = [&](double TierCurvePoint::*field) {
    double sum = 0;
    for (const auto& d : draws) sum += d.*field;
    return sum / n;
  };
  for (auto field :
       {&TierCurvePoint::output_tokens_per_s, &TierCurvePoint::ttft_p50_s, &TierCurvePoint::ttft_p99_s,
        &TierCurvePoint::cpu_hit_rate, &TierCurvePoint::gpu_hit_rate, &TierCurvePoint::goodput_rps,
        &TierCurvePoint::h2d_utilization, &TierCurvePoint::d2h_utilization,
        &TierCurvePoint::engine_busy_share, &TierCurvePoint::costliest_share,
        &TierCurvePoint::busiest_ttft_p99_s, &TierCurvePoint::replica_hit_rate_min,
        &TierCurvePoint::replica_hit_rate_max}) {
    m.*field = mean(field);
  }
  for (const auto& d : draws) {  // curve_point leaves these empty: one draw has no spread
    m.draw_output_tokens_per_s.push_back(d.output_tokens_per_s);
    m.draw_ttft_p99_s.push_back(d.ttft_p99_s);
    m.draw_goodput_rps.push_back(d.goodput_rps);
  }
  const auto [tlo, thi] =
      std::minmax_element(m.draw_output_tokens_per_s.begin(), m.draw_output_tokens_per_s.end());
  const auto [llo, lhi] = std::minmax_element(m.draw_ttft_p99_s.begin(), m.draw_ttft_p99_s.end());
  m.output_tokens_per_s_min = *tlo;
  m.output_tokens_per_s_max = *thi;
  m.ttft_p99_min_s = *llo;
  m.ttft_p99_max_s = *lhi;
  return m;
}

// Simulates tier sizes on one prepared setup, each over `draws` workload draws (seeds seed,
// seed + 1, ...); block size and max-model-len do not change with the tier, only the CPU tier
// differs, and draw k is the same traffic at every size.
class TierCurve {
 public:
  TierCurve(SimulationSetup base, SimOptions options, int draws)
      : base_(std::move(base)), options_(options), draws_(std::max(1, draws)) {}

  const TierCurvePoint& at(int gib) {
    auto it = points_.find(gib);
    if (it != points_.end()) return it->second;
    auto setup = base_;
    setup.offloading = gib > 0;
    setup.cpu_blocks = gib > 0 ? cpu_blocks_for(gib, static_cast<std::int64_t>(setup.cpu_block_bytes)) : 0;
    if (gib > 0) setup.scenario.server.kv_offloading_size = gib;
    running_gib_ = gib;  // named if a signal cuts this simulation
    std::vector<TierCurvePoint> draws;
    for (int k = 0; k < draws_; ++k) {
      setup.scenario.seed = base_.scenario.seed + static_cast<std::uint64_t>(k);
      const auto result = run_simulation(setup, options_);
      if (gib == 0) require_served(result, setup.scenario, setup.max_model_len);  // else no tier to size
      requests_ = result.requests;
      draws.push_back(curve_point(gib, result));
    }
    return points_.emplace(gib, mean_of_draws(draws)).first->second;
  }

  // Mean output tok/s without a tier on a GPU pool `share` times this one, over the same draws.
  double no_tier_throughput_with_pool(double share) const {
    auto setup = base_;
    setup.offloading = false;
    setup.cpu_blocks = 0;
    setup.gpu_blocks = std::max<std::int64_t>(1, std::llround(share * static_cast<double>(base_.gpu_blocks)));
    double sum = 0;
    for (int k = 0; k < draws_; ++k) {
      setup.scenario.seed = base_.scenario.seed + static_cast<std::uint64_t>(k);
      sum += run_simulation(setup, options_).output_tokens_per_s;
    }
    return sum / draws_;
  }
  std::int64_t gpu_blocks() const { return base_.gpu_blocks; }
  // Whether a pool `share` times this one still holds max-model-len (else vLLM would not start).
  bool pool_holds_max_model_len(double share) const {
    return share * static_cast<double>(base_.gpu_blocks) * base_.block_size >=
           static_cast<double>(base_.max_model_len);
  }

  std::vector<TierCurvePoint> points() const {
    std::vector<TierCurvePoint> out;
    for (const auto& [gib, p] : points_) out.push_back(p);  // std::map: ascending sizes
    return out;
  }

 private:
  SimulationSetup base_;
  SimOptions options_;
  int draws_ = 1;
  std::map<int, TierCurvePoint> points_;
  std::int64_t requests_ = 0;
  int running_gib_ = 0;

 public:
  int running_gib() const { return running_gib_; }
  std::int64_t requests() const { return requests_; }  // per point: the draw (or trace) is the same for all
  ExpectedError expected_error() const { return expected_error_for(base_); }
};

// Balanced's second rule: the size that gained in one metric while losing more than 2% in the
// other (store traffic or reload convoys), if any.
std::optional<TradedOffVerdict> traded_off(const std::vector<TierCurvePoint>& curve) {
  const auto tput = objective_gains(curve, TierObjective::kThroughput);
  const auto ttft = objective_gains(curve, TierObjective::kTtftP99);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const bool gained = ttft[i] >= kBalancedTtftGain || tput[i] >= kPaysGain;
    if (gained && (ttft[i] < -kBalancedMaxLoss || tput[i] < -kBalancedMaxLoss))
      return TradedOffVerdict{
          .gib = curve[i].kv_offloading_size_gib, .ttft_gain = ttft[i], .throughput_gain = tput[i]};
  }
  return std::nullopt;
}

// Why nothing pays: nothing to reuse, reuse the GPU cache already holds, a trade-off balanced
// refuses, arrivals (not the server) set the pace, the link, or decode-heavy compute.
// The size whose throughput falls most below no tier, when it falls by more than the balanced
// objective tolerates: the tier costs, it does not merely fail to pay.
std::optional<TierCostsVerdict> tier_costs(const std::vector<TierCurvePoint>& curve) {
  const auto& none = curve.front();
  if (none.output_tokens_per_s <= 0) return std::nullopt;
  std::size_t worst = 0;
  double loss = 0;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const double change = curve[i].output_tokens_per_s / none.output_tokens_per_s - 1;
    if (change < loss) {
      loss = change;
      worst = i;
    }
  }
  if (worst == 0 || loss > -kBalancedMaxLoss) return std::nullopt;
  const auto& w = curve[worst];
  return TierCostsVerdict{.gib = w.kv_offloading_size_gib,
                          .loss = -loss,
                          .mechanism_share = w.costliest_share,
                          .mechanism = w.costliest_mechanism};
}

TierVerdict why_it_does_not_pay(const std::vector<TierCurvePoint>& curve, TierObjective objective) {
  const auto& none = curve.front();
  const auto& top = curve.back();
  const double gib = top.kv_offloading_size_gib;
  if (auto costs = tier_costs(curve)) return *costs;
  if (none.gpu_hit_rate + top.cpu_hit_rate < 0.01)
    return NoReuseVerdict{.gpu_hit_rate = none.gpu_hit_rate, .cpu_hit_rate = top.cpu_hit_rate, .gib = gib};
  if (top.cpu_hit_rate < 0.01)
    return ReuseFitsGpuVerdict{
        .gpu_hit_rate = none.gpu_hit_rate, .cpu_hit_rate = top.cpu_hit_rate, .gib = gib};
  if (objective == TierObjective::kBalanced) {
    if (auto t = traded_off(curve)) return *t;
  }
  if (objective == TierObjective::kThroughput && none.engine_busy_share < 0.9)
    return ArrivalBoundVerdict{
        .engine_busy_share = none.engine_busy_share, .cpu_hit_rate = top.cpu_hit_rate, .gib = gib};
  if (top.h2d_utilization > 0.5)
    return LinkBoundVerdict{
        .cpu_hit_rate = top.cpu_hit_rate, .h2d_utilization = top.h2d_utilization, .gib = gib};
  return ComputeBoundVerdict{.cpu_hit_rate = top.cpu_hit_rate, .gib = gib};
}

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

// No size pays: the reason, and what the other objectives would make of the same curve.
void explain_no_tier(TierRecommendation& rec, const TierAdviceRequest& req, const JudgedCurve& j) {
  rec.pays = false;
  rec.kv_offloading_size_gib = 0;
  rec.bound = TierBound::kNone;
  rec.gain = 0;
  double best = 0;
  for (std::size_t i = 1; i < j.knee_gains.size(); ++i) best = std::max(best, j.knee_gains[i]);
  if (rec.curve.size() < 2) {
    rec.verdict = NoRoomVerdict{.cap_gib = req.cap_gib};
  } else {
    rec.verdict = why_it_does_not_pay(rec.curve, req.objective);
    rec.costs = std::holds_alternative<TierCostsVerdict>(*rec.verdict);
  }
  rec.steps.push_back(NoTierStep{.best_gain = best,
                                 .metric = j.metric,
                                 .objective = req.objective,
                                 .without_cpu_hits = best >= j.pays_gain});
  for (auto other : {TierObjective::kBalanced, TierObjective::kTtftP99, TierObjective::kThroughput}) {
    if (other == req.objective || req.objective == TierObjective::kBalanced) continue;
    const auto alt = judge_curve(rec.curve, other);
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
  if (!req.candidates.empty()) {
    sim.at(0);
    for (int gib : req.candidates) sim.at(gib);
    return;
  }
  for (int gib : tier_size_grid(req.floor_gib, req.cap_gib, req.grid_points)) sim.at(gib);
  for (int step = 0; step < req.bisections; ++step) {
    const auto curve = sim.points();
    const auto knee = judged_knee(curve, judge_curve(curve, req.objective));
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
    j = judge_curve(rec.curve, req.objective);
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
                     .goodput_rps = std::nullopt};
  if (req.objective == TierObjective::kGoodput) {
    step.goodput_none_rps = none.goodput_rps;
    step.goodput_rps = chosen.goodput_rps;
  }
  rec.steps.push_back(step);
}

// Run after the curve (inside its interruption guard): the step when the server sits on a knee.
std::optional<PoolKneeStep> pool_knee(const TierCurve& sim, double none_tokens_per_s) {
  if (none_tokens_per_s <= 0) return std::nullopt;
  PoolKneeStep knee{.pool_step = kPoolStep,
                    .gpu_blocks = sim.gpu_blocks(),
                    .smaller = std::nullopt,
                    .larger = sim.no_tier_throughput_with_pool(1 + kPoolStep) / none_tokens_per_s - 1};
  if (sim.pool_holds_max_model_len(1 - kPoolStep))
    knee.smaller = sim.no_tier_throughput_with_pool(1 - kPoolStep) / none_tokens_per_s - 1;
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
  auto judged = judge_curve(rec.curve, req.objective);
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
  return rec;
}

}  // namespace kvb
