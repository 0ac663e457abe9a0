#include "advise/tier_advisor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "advise/knee.hpp"
#include "core/units.hpp"
#include "sim/simulation_setup.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

constexpr double kKneeShare = 0.95;  // the knee: the smallest size with 95% of the best gain
constexpr double kPaysGain = 0.02;   // below a 2% best gain, offloading does not pay
constexpr double kWorseGain = -0.02; // a point this much worse than no tier is reported
constexpr double kMinCpuHits = 0.001; // a best point with fewer CPU hits (share of prompt tokens) gains by chance

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
  return p;
}

// Simulates tier sizes on one prepared setup: the same workload draw (seed, block size and
// max-model-len do not change with the tier), only the CPU tier differs.
class TierCurve {
 public:
  TierCurve(SimulationSetup base, SimOptions options) : base_(std::move(base)), options_(options) {}

  const TierCurvePoint& at(int gib) {
    auto it = points_.find(gib);
    if (it != points_.end()) return it->second;
    auto setup = base_;
    setup.offloading = gib > 0;
    setup.cpu_blocks = gib > 0 ? cpu_blocks_for(gib, static_cast<std::int64_t>(setup.cpu_block_bytes)) : 0;
    if (gib > 0) setup.scenario.server.kv_offloading_size = gib;
    return points_.emplace(gib, curve_point(gib, run_simulation(setup, options_))).first->second;
  }

  std::vector<TierCurvePoint> points() const {
    std::vector<TierCurvePoint> out;
    for (const auto& [gib, p] : points_) out.push_back(p);  // std::map: ascending sizes
    return out;
  }

 private:
  SimulationSetup base_;
  SimOptions options_;
  std::map<int, TierCurvePoint> points_;
};

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

// Why the best gain stays under 2%: nothing to reuse, reuse the GPU cache already holds,
// arrivals (not the server) set the pace, the link, or decode-heavy compute.
std::string why_it_does_not_pay(const std::vector<TierCurvePoint>& curve, TierObjective objective) {
  const auto& none = curve.front();
  const auto& top = curve.back();
  if (none.gpu_hit_rate + top.cpu_hit_rate < 0.01) {
    return fmt::format("no reuse: no prompt shares a prefix with an earlier one (GPU prefix-cache hits {}, CPU-tier hits "
                       "{} even at {:g} GiB), so a tier has nothing to serve",
                       percent(none.gpu_hit_rate), percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
  }
  if (top.cpu_hit_rate < 0.01) {
    return fmt::format("the reuse already fits the GPU cache: {} of prompt tokens hit the GPU prefix cache without a "
                       "tier, and {:g} GiB of tier adds {}",
                       percent(none.gpu_hit_rate), top.kv_offloading_size_gib, percent(top.cpu_hit_rate));
  }
  if (objective == TierObjective::kThroughput && none.engine_busy_share < 0.9) {
    return fmt::format("arrival-bound: without a tier the engine is busy {} of the time, so the traffic, not the "
                       "server, sets the throughput; the tier's CPU hits ({} of prompt tokens at {:g} GiB) shorten "
                       "prefills instead",
                       percent(none.engine_busy_share), percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
  }
  if (top.h2d_utilization > 0.5) {
    return fmt::format("link-bound: reloading {} of prompt tokens keeps the host link busy {} of the time at {:g} GiB, "
                       "no faster than recomputing them",
                       percent(top.cpu_hit_rate), percent(top.h2d_utilization), top.kv_offloading_size_gib);
  }
  return fmt::format("compute-bound: the prefill the tier saves ({} of prompt tokens at {:g} GiB) is a small share of "
                     "the engine's work, which decode dominates",
                     percent(top.cpu_hit_rate), top.kv_offloading_size_gib);
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
  const auto start = std::chrono::steady_clock::now();
  auto scenario = req.scenario;
  scenario.server.kv_offloading_size.reset();
  SimOptions options;
  options.slo = req.slo;
  TierCurve sim(prepare_simulation(scenario, req.link), options);

  TierRecommendation rec;
  rec.basis = "simulation";
  rec.objective = to_string(req.objective);
  rec.floor_gib = req.floor_gib;
  rec.cap_gib = req.cap_gib;
  rec.workload = scenario.name;
  rec.requests = scenario.workload.requests;

  for (int gib : tier_size_grid(req.floor_gib, req.cap_gib, req.grid_points)) sim.at(gib);
  // Bisect between the knee and the size below it, so the knee is not a grid artefact.
  for (int step = 0; step < req.bisections; ++step) {
    const auto curve = sim.points();
    const auto knee = find_knee(objective_gains(curve, req.objective), kKneeShare, kPaysGain);
    if (!knee || knee->index < 2) break;
    const int below = static_cast<int>(curve[knee->index - 1].kv_offloading_size_gib);
    const int at = static_cast<int>(curve[knee->index].kv_offloading_size_gib);
    if (at - below <= 1) break;
    sim.at(below + (at - below) / 2);
  }
  rec.curve = sim.points();
  const auto gains = objective_gains(rec.curve, req.objective);
  for (std::size_t i = 0; i < gains.size(); ++i) rec.curve[i].gain = gains[i];
  auto knee = find_knee(gains, kKneeShare, kPaysGain);
  // A gain with (almost) no CPU hits is not the tier's doing: scheduling noise in a tail.
  if (knee && rec.curve[knee->best_index].cpu_hit_rate < kMinCpuHits) knee.reset();
  const TierCurvePoint none = rec.curve.front();
  rec.reasoning.push_back(fmt::format("simulated {} tier sizes of {} ({} requests each, one workload draw for all), from "
                                      "none to the {:.0f} GiB host-DRAM cap",
                                      rec.curve.size(), rec.workload, rec.requests, req.cap_gib));

  if (!knee) {
    rec.pays = false;
    rec.kv_offloading_size_gib = 0;
    rec.bound = "none";
    double best = 0;
    for (std::size_t i = 1; i < gains.size(); ++i) best = std::max(best, gains[i]);
    rec.gain = 0;
    rec.why = rec.curve.size() < 2
                  ? fmt::format("the host-DRAM cap ({:.1f} GiB) leaves no room for a tier", req.cap_gib)
                  : why_it_does_not_pay(rec.curve, req.objective);
    rec.reasoning.push_back(
        best >= kPaysGain
            ? fmt::format("best gain {} ({}) comes with no CPU-tier hits, so it is not the tier's doing: recommend no "
                          "CPU tier",
                          describe_gain(best, req.objective), rec.objective)
            : fmt::format("best gain {} ({}), under the 2% that pays for pinning and store traffic: recommend no CPU "
                          "tier",
                          describe_gain(best, req.objective), rec.objective));
    // What another objective would make of the same curve.
    for (auto other : {TierObjective::kTtftP99, TierObjective::kThroughput}) {
      if (other == req.objective) continue;
      const auto alt = find_knee(objective_gains(rec.curve, other), kKneeShare, kPaysGain);
      if (alt) {
        rec.reasoning.push_back(fmt::format("--objective {} pays: {:g} GiB on this grid reaches its knee ({}); run it "
                                            "for its own refined knee",
                                            to_string(other),
                                            rec.curve[alt->index].kv_offloading_size_gib,
                                            describe_gain(objective_gains(rec.curve, other)[alt->index], other)));
      }
    }
  } else {
    const TierCurvePoint at = rec.curve[knee->index];
    rec.pays = true;
    rec.kv_offloading_size_gib = at.kv_offloading_size_gib;
    rec.gain = gains[knee->index];
    rec.bound = "knee";
    rec.why = fmt::format("the knee: {:g} GiB reaches {} of the best gain ({} at {:g} GiB), with {} of prompt tokens "
                          "from the CPU tier",
                          at.kv_offloading_size_gib, percent(rec.gain / knee->best_gain),
                          describe_gain(knee->best_gain, req.objective),
                          rec.curve[knee->best_index].kv_offloading_size_gib, percent(at.cpu_hit_rate));
    const bool still_rising = knee->index + 1 == rec.curve.size() && knee->index >= 2 &&
                              gains[knee->index - 1] < kKneeShare * knee->best_gain;
    if (rec.kv_offloading_size_gib <= req.floor_gib && std::floor(req.floor_gib) + 1 <= req.cap_gib) {
      rec.kv_offloading_size_gib = std::floor(req.floor_gib) + 1;
      rec.bound = "floor";
      const auto& p = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
      rec.gain = objective_gains({none, p}, req.objective)[1];
      rec.reasoning.push_back(fmt::format("the knee ({:g} GiB) is at or below vLLM's floor, the {:.1f} GiB GPU KV pool "
                                          "(all ranks) a write-through tier only mirrors: raised to {:g} GiB",
                                          at.kv_offloading_size_gib, req.floor_gib, rec.kv_offloading_size_gib));
      rec.curve = sim.points();
      const auto all = objective_gains(rec.curve, req.objective);
      for (std::size_t i = 0; i < all.size(); ++i) rec.curve[i].gain = all[i];
    } else if (still_rising) {
      rec.bound = "dram-cap";
      rec.reasoning.push_back(fmt::format("the gain is still rising at the {:.0f} GiB host-DRAM cap: more host memory "
                                          "would pay (--host-memory)",
                                          req.cap_gib));
    }
    const TierCurvePoint chosen = sim.at(static_cast<int>(rec.kv_offloading_size_gib));
    rec.reasoning.push_back(fmt::format("recommend {:g} GiB ({}; bound: {}): TTFT p99 {} -> {}, output {:.0f} -> "
                                        "{:.0f} tok/s, CPU-tier hits {} of prompt tokens{}",
                                        rec.kv_offloading_size_gib, describe_gain(rec.gain, req.objective), rec.bound,
                                        format_seconds(none.ttft_p99_s), format_seconds(chosen.ttft_p99_s),
                                        none.output_tokens_per_s, chosen.output_tokens_per_s,
                                        percent(chosen.cpu_hit_rate),
                                        req.objective == TierObjective::kGoodput
                                            ? fmt::format(", goodput {:.3g} -> {:.3g} requests/s within the SLO",
                                                          none.goodput_rps, chosen.goodput_rps)
                                            : std::string()));
  }
  // A tier that makes things worse somewhere: store traffic or reload convoys on the link.
  std::size_t worst = 0;
  for (std::size_t i = 1; i < rec.curve.size(); ++i) {
    if (rec.curve[i].gain < rec.curve[worst].gain) worst = i;
  }
  if (worst > 0 && rec.curve[worst].gain < kWorseGain) {
    const auto& w = rec.curve[worst];
    rec.reasoning.push_back(fmt::format("at {:g} GiB offloading makes it worse: {} vs no tier (host link busy {} h2d, {} "
                                        "d2h: store traffic and reload convoys)",
                                        w.kv_offloading_size_gib, describe_gain(w.gain, req.objective),
                                        percent(w.h2d_utilization), percent(w.d2h_utilization)));
  }
  rec.simulated_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return rec;
}

}  // namespace kvb
