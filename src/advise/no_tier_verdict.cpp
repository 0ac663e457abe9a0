#include "advise/no_tier_verdict.hpp"

#include <optional>

#include "advise/tier_objective.hpp"

namespace kvb {
namespace {

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

}  // namespace

// Why nothing pays: nothing to reuse, reuse the GPU cache already holds, a trade-off balanced
// refuses, arrivals (not the server) set the pace, the link, or decode-heavy compute.
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

}  // namespace kvb
