#include "advise/tier_advisor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "advise/knee.hpp"
#include "core/interrupt.hpp"
#include "core/units.hpp"
#include "sim/simulation_setup.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

constexpr double kKneeShare = 0.95;        // the knee: the smallest size with 95% of the best gain
constexpr double kWorseGain = -0.02;       // a point this much worse than no tier is reported
constexpr double kOverloadTtftP50 = 30.0;  // s: a median first token this late is a queue, not a prefill
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
  p.engine_busy_share = r.engine_busy_s / span;
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
      requests_ = result.requests;
      draws.push_back(curve_point(gib, result));
    }
    return points_.emplace(gib, mean_of_draws(draws)).first->second;
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
  std::string expected_error() const { return expected_error_for(base_); }
};

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

// Balanced's second rule: the size that gained in one metric while losing more than 2% in the
// other (store traffic or reload convoys), if any.
std::optional<std::string> traded_off(const std::vector<TierCurvePoint>& curve) {
  const auto tput = objective_gains(curve, TierObjective::kThroughput);
  const auto ttft = objective_gains(curve, TierObjective::kTtftP99);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const bool gained = ttft[i] >= kBalancedTtftGain || tput[i] >= kPaysGain;
    if (gained && (ttft[i] < -kBalancedMaxLoss || tput[i] < -kBalancedMaxLoss)) {
      return fmt::format(
          "every size that gains also loses: at {:g} GiB {} but {} (more than the {:.0f}% the default "
          "objective allows)",
          curve[i].kv_offloading_size_gib, describe_gain(ttft[i], TierObjective::kTtftP99),
          describe_gain(tput[i], TierObjective::kThroughput), kBalancedMaxLoss * 100);
    }
  }
  return std::nullopt;
}

// Why nothing pays: nothing to reuse, reuse the GPU cache already holds, a trade-off balanced
// refuses, arrivals (not the server) set the pace, the link, or decode-heavy compute.
// The size whose throughput falls most below no tier, when it falls by more than the balanced
// objective tolerates: the tier costs, it does not merely fail to pay.
std::optional<std::string> tier_costs(const std::vector<TierCurvePoint>& curve) {
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
  const auto mechanism =
      w.costliest_mechanism.empty()
          ? std::string(
                "no cost mechanism adds step time: the loss is in scheduling, GPU blocks held while "
                "stores drain and requests waiting on loads")
          : fmt::format("mostly {}: {} of the engine's step time", w.costliest_mechanism,
                        percent(w.costliest_share));
  return fmt::format("at this traffic a tier of {:g} GiB costs {:.1f}% output tok/s ({})",
                     w.kv_offloading_size_gib, -loss * 100, mechanism);
}

std::string why_it_does_not_pay(const std::vector<TierCurvePoint>& curve, TierObjective objective) {
  const auto& none = curve.front();
  const auto& top = curve.back();
  if (auto costs = tier_costs(curve)) return *costs;
  if (none.gpu_hit_rate + top.cpu_hit_rate < 0.01) {
    return fmt::format(
        "no reuse: no prompt shares a prefix with an earlier one (GPU prefix-cache hits {}, CPU-tier hits "
        "{} even at {:g} GiB), so a tier has nothing to serve",
        percent(none.gpu_hit_rate), percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
  }
  if (top.cpu_hit_rate < 0.01) {
    return fmt::format(
        "the reuse already fits the GPU cache: {} of prompt tokens hit the GPU prefix cache without a "
        "tier, and {:g} GiB of tier adds {}",
        percent(none.gpu_hit_rate), top.kv_offloading_size_gib, percent(top.cpu_hit_rate));
  }
  if (objective == TierObjective::kBalanced) {
    if (auto t = traded_off(curve)) return *t;
  }
  if (objective == TierObjective::kThroughput && none.engine_busy_share < 0.9) {
    return fmt::format(
        "arrival-bound: without a tier the engine is busy {} of the time, so the traffic, not the "
        "server, sets the throughput; the tier's CPU hits ({} of prompt tokens at {:g} GiB) shorten "
        "prefills instead",
        percent(none.engine_busy_share), percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
  }
  if (top.h2d_utilization > 0.5) {
    return fmt::format(
        "link-bound: reloading {} of prompt tokens keeps the host link busy {} of the time at {:g} GiB, "
        "no faster than recomputing them",
        percent(top.cpu_hit_rate), percent(top.h2d_utilization), top.kv_offloading_size_gib);
  }
  return fmt::format(
      "compute-bound: the prefill the tier saves ({} of prompt tokens at {:g} GiB) is a small share of "
      "the engine's work, which decode dominates",
      percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
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

std::string pays_rule(TierObjective o) {
  if (o == TierObjective::kBalanced) {
    return fmt::format(
        "neither TTFT p99 falls by {:.0f}% nor output throughput rises by {:.0f}% (with the other "
        "within {:.0f}%)",
        kBalancedTtftGain * 100, kPaysGain * 100, kBalancedMaxLoss * 100);
  }
  return fmt::format("under the {:.0f}% that pays for pinning and store traffic", kPaysGain * 100);
}

// No size pays: the reason, and what the other objectives would make of the same curve.
void explain_no_tier(TierRecommendation& rec, const TierAdviceRequest& req, const JudgedCurve& j) {
  rec.pays = false;
  rec.kv_offloading_size_gib = 0;
  rec.bound = TierBound::kNone;
  rec.gain = 0;
  double best = 0;
  for (std::size_t i = 1; i < j.knee_gains.size(); ++i) best = std::max(best, j.knee_gains[i]);
  rec.why = rec.curve.size() < 2
                ? fmt::format("the host-DRAM cap ({:.1f} GiB) leaves no room for a tier", req.cap_gib)
                : why_it_does_not_pay(rec.curve, req.objective);
  rec.costs = rec.curve.size() >= 2 && tier_costs(rec.curve).has_value();
  rec.reasoning.push_back(
      best >= j.pays_gain
          ? fmt::format(
                "best gain {} ({}) comes with no CPU-tier hits, so it is not the tier's doing: recommend no "
                "CPU tier",
                describe_gain(best, j.metric), to_string(req.objective))
          : fmt::format("best gain {} ({}): {}: recommend no CPU tier", describe_gain(best, j.metric),
                        to_string(req.objective), pays_rule(req.objective)));
  for (auto other : {TierObjective::kBalanced, TierObjective::kTtftP99, TierObjective::kThroughput}) {
    if (other == req.objective || req.objective == TierObjective::kBalanced) continue;
    const auto alt = judge_curve(rec.curve, other);
    if (const auto k = judged_knee(rec.curve, alt)) {
      rec.reasoning.push_back(
          fmt::format("--objective {} pays: {:g} GiB on this grid reaches its knee ({}); run it "
                      "for its own refined knee",
                      to_string(other), rec.curve[k->index].kv_offloading_size_gib,
                      describe_gain(alt.gains[k->index], alt.metric)));
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
    rec.reasoning.push_back(
        fmt::format("at {:g} GiB offloading makes it worse: {} vs no tier (host link busy {} h2d, {} "
                    "d2h: store traffic and reload convoys)",
                    w.kv_offloading_size_gib, describe_gain(w.gain, metric), percent(w.h2d_utilization),
                    percent(w.d2h_utilization)));
  }
}

// Requests that wait minutes for their first token mean the traffic is more than one server takes:
// every size then answers for a queue, not for the tier. Said first, with the way out.
void note_overload(TierRecommendation& rec, const Scenario& scenario) {
  const auto& none = rec.curve.front();
  if (none.ttft_p50_s < kOverloadTtftP50) return;
  rec.reasoning.insert(
      rec.reasoning.begin(),
      fmt::format("overloaded: without a tier the median request waits {} for its first token, so "
                  "requests queue on this one server; {}",
                  format_seconds(none.ttft_p50_s),
                  scenario.trace ? "a cluster's trace fits one instance with --trace-sample F (e.g. 0.1)"
                                 : "lower the workload's rate or add servers"));
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
  rec.why = fmt::format(
      "the knee: {:g} GiB reaches {} of the best gain ({} at {:g} GiB), with {} of prompt tokens "
      "from the CPU tier",
      at.kv_offloading_size_gib, percent(rec.gain / knee.best_gain), describe_gain(knee.best_gain, j.metric),
      rec.curve[knee.best_index].kv_offloading_size_gib, percent(at.cpu_hit_rate));
  const bool still_rising = knee.index + 1 == rec.curve.size() && knee.index >= 2 &&
                            j.knee_gains[knee.index - 1] < kKneeShare * knee.best_gain;
  if (const double raised = raise_to_floor(rec.kv_offloading_size_gib, req.floor_gib, req.cap_gib);
      raised != rec.kv_offloading_size_gib) {
    rec.kv_offloading_size_gib = raised;
    rec.bound = TierBound::kFloor;
    const auto& p = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
    rec.gain = objective_gains({none, p}, j.metric)[1];
    rec.reasoning.push_back(
        fmt::format("the knee ({:g} GiB) is at or below vLLM's floor, the {:.1f} GiB GPU KV pool "
                    "(all ranks) a write-through tier only mirrors: raised to {:g} GiB",
                    at.kv_offloading_size_gib, req.floor_gib, rec.kv_offloading_size_gib));
    rec.curve = sim.points();
    j = judge_curve(rec.curve, req.objective);
    store_gains(rec, j);
  } else if (still_rising) {
    rec.bound = TierBound::kDramCap;
    rec.reasoning.push_back(
        fmt::format("the gain is still rising at the {:.0f} GiB host-DRAM cap: more host memory "
                    "would pay (--host-memory)",
                    req.cap_gib));
  }
  const TierCurvePoint chosen = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
  for (const auto& c : rec.curve) {
    if (c.kv_offloading_size_gib == rec.kv_offloading_size_gib) rec.gain_spread = c.gain_spread;
  }
  rec.reasoning.push_back(fmt::format(
      "recommend {:g} GiB ({}{}; bound: {}): TTFT p99 {} -> {}, output {:.0f} -> "
      "{:.0f} tok/s, CPU-tier hits {} of prompt tokens{}",
      rec.kv_offloading_size_gib, describe_gain(rec.gain, j.metric),
      rec.gain_spread > 0 ? fmt::format(" +/- {:.1f}% over {} draws", rec.gain_spread * 100, rec.seeds)
                          : std::string(),
      to_string(rec.bound), format_seconds(none.ttft_p99_s), format_seconds(chosen.ttft_p99_s),
      none.output_tokens_per_s, chosen.output_tokens_per_s, percent(chosen.cpu_hit_rate),
      req.objective == TierObjective::kGoodput
          ? fmt::format(", goodput {:.3g} -> {:.3g} requests/s within the SLO", none.goodput_rps,
                        chosen.goodput_rps)
          : std::string()));
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
  rec.reasoning = req.candidate_reasons;
  rec.expected_error = sim.expected_error();

  try {
    simulate_sizes(sim, req);
  } catch (const Interrupted&) {
    // A partial curve can put the knee anywhere: keep the sizes simulated, recommend none.
    rec.curve = sim.points();
    rec.requests = sim.requests();
    rec.interrupted_during = fmt::format("the {} GiB tier's simulation", sim.running_gib());
    rec.pays = false;
    rec.bound = TierBound::kInterrupted;
    rec.why = fmt::format(
        "interrupted ({}) during {} after {} tier size{}: no size recommended from a partial curve",
        interrupt_signal_name(), rec.interrupted_during, rec.curve.size(), rec.curve.size() == 1 ? "" : "s");
    return rec;
  }
  rec.requests = sim.requests();
  rec.curve = sim.points();
  auto judged = judge_curve(rec.curve, req.objective);
  store_gains(rec, judged);
  note_overload(rec, scenario);
  const auto knee = judged_knee(rec.curve, judged);
  rec.reasoning.push_back(
      fmt::format("simulated {} tier sizes of {} ({}, {}), from none to the {:.0f} "
                  "GiB host-DRAM cap{}",
                  rec.curve.size(), rec.workload, fmt::format("{} requests each", rec.requests),
                  draws == 1 ? std::string("one draw for all")
                             : fmt::format("{} draws each, the same draws at every size; a gain counts only "
                                           "above half the range of the draws' gains",
                                           draws),
                  req.cap_gib,
                  req.objective == TierObjective::kBalanced
                      ? fmt::format("; judged on {}, the metric that moved most", to_string(judged.metric))
                      : std::string()));
  if (knee) {
    recommend_knee(rec, sim, req, *knee, judged);
  } else {
    explain_no_tier(rec, req, judged);
  }
  note_worst_point(rec, judged.metric);
  return rec;
}

}  // namespace kvb
