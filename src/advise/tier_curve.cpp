#include "advise/tier_curve.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

const TierCurvePoint& TierCurve::at(int gib) {
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

double TierCurve::no_tier_throughput_with_pool(double share) const {
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

}  // namespace kvb
