#include "advise/tier_curve.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "advise/served_traffic.hpp"
#include "core/worker_pool.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

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

// The draws' means of a secondary tier's figures, and the most it held in any draw.
SecondaryRun secondary_of_draws(const std::vector<TierCurvePoint>& points,
                                const std::vector<SecondaryTierResult>& tiers) {
  SecondaryRun out{.point = mean_of_draws(points)};
  const auto n = static_cast<double>(tiers.size());
  for (const auto& t : tiers) {
    out.hit_rate += t.hit_rate / n;
    out.bytes_written += t.bytes_written / n;
    out.bytes_read += t.bytes_read / n;
    out.peak_blocks = std::max(out.peak_blocks, t.peak_blocks);
  }
  return out;
}

}  // namespace

SimulationSetup TierCurve::setup_for(int gib, std::size_t draw) const {
  auto setup = base_;
  setup.offloading = gib > 0;
  setup.cpu_blocks = gib > 0 ? cpu_blocks_for(gib, static_cast<std::int64_t>(setup.cpu_block_bytes)) : 0;
  if (gib > 0) setup.scenario.server.kv_offloading_size = gib;
  setup.scenario.seed = base_.scenario.seed + static_cast<std::uint64_t>(draw);
  return setup;
}

std::vector<SecondaryRun> TierCurve::with_secondary(int gib,
                                                    const std::vector<SecondaryTierFigures>& tiers) const {
  const auto draws = static_cast<std::size_t>(draws_);
  std::vector<TierCurvePoint> points(tiers.size() * draws);
  std::vector<SecondaryTierResult> results(points.size());
  std::size_t replicas = 1;
  const auto run = run_indexed(points.size(), options_.jobs, [&](std::size_t task) {
    auto setup = setup_for(gib, task % draws);
    setup.secondary = tiers[task / draws];
    const auto result = run_simulation(setup, options_);
    points[task] = curve_point(gib, result);
    if (result.secondary) results[task] = *result.secondary;
    if (task == 0) replicas = std::max<std::size_t>(1, result.replicas.size());
  });
  if (run.error) std::rethrow_exception(run.error);
  std::vector<SecondaryRun> out;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const auto first = static_cast<std::ptrdiff_t>(t * draws);
    const auto last = first + static_cast<std::ptrdiff_t>(draws);
    out.push_back(secondary_of_draws({points.begin() + first, points.begin() + last},
                                     {results.begin() + first, results.begin() + last}));
    out.back().replicas = static_cast<int>(replicas);
  }
  return out;
}

void TierCurve::simulate(const std::vector<int>& gibs) {
  std::vector<int> sizes;
  for (int gib : gibs) {
    if (!points_.count(gib) && std::find(sizes.begin(), sizes.end(), gib) == sizes.end())
      sizes.push_back(gib);
  }
  if (sizes.empty()) return;
  const auto draws = static_cast<std::size_t>(draws_);
  std::vector<TierCurvePoint> results(sizes.size() * draws);
  std::vector<std::int64_t> requests(results.size(), 0);
  const auto run = run_indexed(results.size(), options_.jobs, [&](std::size_t task) {
    const int gib = sizes[task / draws];
    const auto setup = setup_for(gib, task % draws);
    const auto result = run_simulation(setup, options_);
    if (gib == 0) require_served(result, setup.scenario, setup.server.max_model_len);  // else no tier to size
    requests[task] = result.requests;
    results[task] = curve_point(gib, result);
  });
  std::optional<int> unfinished;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const auto first = results.begin() + static_cast<std::ptrdiff_t>(s * draws);
    bool whole = true;
    for (std::size_t k = 0; k < draws; ++k) whole = whole && run.finished[s * draws + k];
    if (whole) {
      requests_ = requests[s * draws];
      points_.emplace(sizes[s], mean_of_draws({first, first + static_cast<std::ptrdiff_t>(draws)}));
    } else if (!unfinished || sizes[s] < *unfinished) {
      unfinished = sizes[s];
    }
  }
  if (unfinished) running_gib_ = *unfinished;  // named if a signal cut the sweep: the smallest size left
  if (run.error) std::rethrow_exception(run.error);
}

const TierCurvePoint& TierCurve::at(int gib) {
  simulate({gib});
  return points_.at(gib);
}

std::vector<double> TierCurve::no_tier_throughput_with_pools(const std::vector<double>& shares) const {
  const auto draws = static_cast<std::size_t>(draws_);
  std::vector<double> tokens_per_s(shares.size() * draws, 0);
  const auto run = run_indexed(tokens_per_s.size(), options_.jobs, [&](std::size_t task) {
    auto setup = base_;
    setup.offloading = false;
    setup.cpu_blocks = 0;
    const double share = shares[task / draws];
    setup.gpu_blocks = std::max<std::int64_t>(1, std::llround(share * static_cast<double>(base_.gpu_blocks)));
    setup.scenario.seed = base_.scenario.seed + static_cast<std::uint64_t>(task % draws);
    tokens_per_s[task] = run_simulation(setup, options_).output_tokens_per_s;
  });
  if (run.error) std::rethrow_exception(run.error);
  std::vector<double> means(shares.size(), 0);
  for (std::size_t task = 0; task < tokens_per_s.size(); ++task) means[task / draws] += tokens_per_s[task];
  for (auto& m : means) m /= static_cast<double>(draws);
  return means;
}

}  // namespace kvb
