#include "advise/tier_objective.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kvb {

std::vector<double> objective_gains(const std::vector<TierCurvePoint>& curve, TierObjective o) {
  std::vector<double> gains(curve.size(), 0.0);
  if (curve.empty()) return gains;
  const auto& base = curve.front();
  double best_goodput = 0;
  for (const auto& c : curve) best_goodput = std::max(best_goodput, c.goodput_rps);
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const auto& c = curve[i];
    switch (o) {
      case TierObjective::kBalanced:  // judge_curve picks the metric; alone it reads as throughput
      case TierObjective::kThroughput:
        gains[i] = base.output_tokens_per_s > 0 ? c.output_tokens_per_s / base.output_tokens_per_s - 1 : 0;
        break;
      case TierObjective::kTtftP99:
        gains[i] = base.ttft_p99_s > 0 ? 1 - c.ttft_p99_s / base.ttft_p99_s : 0;
        break;
      case TierObjective::kGoodput:
        if (base.goodput_rps > 0) {
          gains[i] = c.goodput_rps / base.goodput_rps - 1;
        } else {
          gains[i] = best_goodput > 0 ? c.goodput_rps / best_goodput : 0;
        }
        break;
    }
  }
  return gains;
}

namespace {

// Each draw's gain over its own no-tier point in `metric`; half their range per size.
std::vector<double> draw_spreads(const std::vector<TierCurvePoint>& curve, TierObjective metric) {
  std::vector<double> spreads(curve.size(), 0.0);
  if (curve.empty()) return spreads;
  const auto& base = curve.front();
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const auto& c = curve[i];
    const auto draws = std::min(c.draw_output_tokens_per_s.size(), base.draw_output_tokens_per_s.size());
    if (draws < 2) continue;
    double lo = 0, hi = 0;
    for (std::size_t k = 0; k < draws; ++k) {
      TierCurvePoint b, p;
      b.output_tokens_per_s = base.draw_output_tokens_per_s[k];
      b.ttft_p99_s = base.draw_ttft_p99_s[k];
      b.goodput_rps = base.draw_goodput_rps[k];
      p.output_tokens_per_s = c.draw_output_tokens_per_s[k];
      p.ttft_p99_s = c.draw_ttft_p99_s[k];
      p.goodput_rps = c.draw_goodput_rps[k];
      const double g = objective_gains({b, p}, metric)[1];
      lo = k == 0 ? g : std::min(lo, g);
      hi = k == 0 ? g : std::max(hi, g);
    }
    spreads[i] = (hi - lo) / 2;
  }
  return spreads;
}

// The draws' spread of the deciding metric, and no knee where the gain is within it.
void apply_spreads(JudgedCurve& j, const std::vector<TierCurvePoint>& curve) {
  j.spreads = draw_spreads(curve, j.metric);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (j.spreads[i] > 0 && j.knee_gains[i] > 0 && j.gains[i] <= j.spreads[i]) j.knee_gains[i] = 0;
  }
}

// No knee where the gain, less its spread over the draws, does not exceed the simulation's stated
// error for this class of server: both stand between the simulated gain and a real server's.
void apply_model_error(JudgedCurve& j, const ExpectedError* expected) {
  if (!expected) return;
  j.model_error = stated_error(*expected, j.metric);
  j.unscored = !j.model_error;
  if (!j.model_error) return;
  for (std::size_t i = 1; i < j.gains.size(); ++i) {
    if (j.knee_gains[i] > 0 && j.gains[i] - j.spreads[i] <= *j.model_error) j.knee_gains[i] = 0;
  }
}

}  // namespace

std::optional<double> stated_error(const ExpectedError& e, TierObjective metric) {
  const auto* c = scored_class_of(e);
  if (!c) return std::nullopt;
  return metric == TierObjective::kTtftP99 ? c->ttft_mean : c->e2e_mean;
}

JudgedCurve judge_curve(const std::vector<TierCurvePoint>& curve, TierObjective o,
                        const ExpectedError* expected) {
  JudgedCurve j;
  const auto tput = objective_gains(curve, TierObjective::kThroughput);
  const auto ttft = objective_gains(curve, TierObjective::kTtftP99);
  // A size that costs throughput or TTFT p99 more than the balanced objective tolerates is never
  // chosen, whatever the objective: a tier that costs the server is the answer to avoid. As a gain
  // counts only above half the range of the draws' gains, a loss counts only beyond it: with three
  // draws a p99 of a few hundred requests moves by more than 2% between draws of the same traffic.
  const auto tput_spread = draw_spreads(curve, TierObjective::kThroughput);
  const auto ttft_spread = draw_spreads(curve, TierObjective::kTtftP99);
  std::vector<bool> allowed(curve.size(), false);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    allowed[i] =
        tput[i] >= -(kBalancedMaxLoss + tput_spread[i]) && ttft[i] >= -(kBalancedMaxLoss + ttft_spread[i]);
  }
  if (o != TierObjective::kBalanced) {
    j.metric = o;
    j.gains = objective_gains(curve, o);
    j.knee_gains = j.gains;
    for (std::size_t i = 1; i < curve.size(); ++i) {
      if (!allowed[i]) j.knee_gains[i] = -1;
    }
    apply_spreads(j, curve);
    apply_model_error(j, expected);
    return j;
  }
  // Sizes that make neither metric worse than that; the others may not be chosen.
  double best_tput = 0, best_ttft = 0;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (!allowed[i]) continue;
    best_tput = std::max(best_tput, tput[i]);
    best_ttft = std::max(best_ttft, ttft[i]);
  }
  const bool latency = best_ttft / kBalancedTtftGain > best_tput / kPaysGain;
  j.metric = latency ? TierObjective::kTtftP99 : TierObjective::kThroughput;
  j.gains = latency ? ttft : tput;
  j.pays_gain = latency ? kBalancedTtftGain : kPaysGain;
  j.knee_gains = j.gains;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (!allowed[i]) j.knee_gains[i] = -1;  // never the knee, never the best
  }
  apply_spreads(j, curve);
  apply_model_error(j, expected);
  return j;
}

}  // namespace kvb
