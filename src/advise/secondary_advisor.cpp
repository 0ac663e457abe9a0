#include "advise/secondary_advisor.hpp"

#include <algorithm>
#include <cmath>

#include "advise/knee.hpp"
#include "advise/tier_objective.hpp"
#include "core/interrupt.hpp"
#include "core/units.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

constexpr double kKneeShare = 0.95;  // as the CPU tier's knee: the smallest size with 95% of the best gain
// A best point with fewer prompt tokens from the secondary tier gains by chance (the CPU tier's
// kMinCpuHits, for the tier behind it).
constexpr double kMinSecondaryHits = 0.001;

// The advice's stated figures, before any verdict.
SecondaryTierAdvice stated(const SecondaryAdviceRequest& req, double cpu_gib, double cpu_block_bytes) {
  const auto& f = req.figures;
  SecondaryTierAdvice a;
  a.stated_gib = req.stated_gib;
  a.cpu_gib = cpu_gib;
  a.read_gbps = f.read_bytes_per_s / 1e9;
  a.write_gbps = f.write_bytes_per_s / 1e9;
  a.latency_us = f.latency_s * 1e6;
  a.rates_stated = f.stated;
  a.prefix_tokens = req.prefix_tokens;
  a.reload_s = req.reload_s;
  a.recompute_s = req.recompute_s;
  // The prefix's blocks at the node's disk read rate, one latency for the job (sim/secondary_tier.cpp).
  const auto blocks = (req.prefix_tokens + req.block_size - 1) / std::max(1, req.block_size);
  if (f.read_bytes_per_s > 0)
    a.disk_read_s = f.latency_s + static_cast<double>(blocks) * cpu_block_bytes / f.read_bytes_per_s;
  return a;
}

// Pays: the knee's ladder size, or the most the tier held there when that is less (it never filled).
void recommend(SecondaryTierAdvice& a, const Knee& knee, const JudgedCurve& j) {
  const auto& at = a.ladder[knee.index - 1];
  a.verdict = SecondaryVerdict::kPays;
  a.gain = j.gains[knee.index];
  a.gain_spread = j.spreads[knee.index];
  a.hit_rate = at.hit_rate;
  a.recommended_gib = at.gib;
  a.ladder_gib = at.gib;
  const double held = std::max(1.0, std::ceil(at.peak_gib));
  if (a.replicas == 1 && at.peak_gib > 0 && held < at.gib) {
    a.recommended_gib = held;
    a.basis = SecondaryCapacityBasis::kPeakHeld;
  }
}

// Every size with the secondary tier makes throughput or TTFT p99 worse than the CPU tier alone by
// more than the balanced objective tolerates (whatever metric the gains are judged in).
bool all_lose(const std::vector<TierCurvePoint>& curve) {
  const auto tput = objective_gains(curve, TierObjective::kThroughput);
  const auto ttft = objective_gains(curve, TierObjective::kTtftP99);
  for (std::size_t i = 1; i < curve.size(); ++i)
    if (tput[i] >= -kBalancedMaxLoss && ttft[i] >= -kBalancedMaxLoss) return false;
  return curve.size() > 1;
}

// Does not pay: the reason, in order: no hits, a gain within the stated error, a disk slower than
// recomputing, a loss, a gain below what pays.
void refuse(SecondaryTierAdvice& a, const std::vector<TierCurvePoint>& curve, const JudgedCurve& j,
            TierObjective objective) {
  std::size_t best = 1;
  double most_hits = 0;
  for (std::size_t i = 1; i < j.gains.size(); ++i) {
    if (j.gains[i] > j.gains[best]) best = i;
    most_hits = std::max(most_hits, a.ladder[i - 1].hit_rate);
  }
  a.gain = j.gains[best];
  a.gain_spread = j.spreads[best];
  a.hit_rate = a.ladder[best - 1].hit_rate;
  const auto bare = judge_curve(curve, objective);  // the same curve, the stated error not counted
  const auto bare_knee = find_knee(bare.knee_gains, kKneeShare, bare.pays_gain);
  if (most_hits < kMinSecondaryHits) {
    a.verdict = SecondaryVerdict::kWorkingSetInCpu;
  } else if (bare_knee && j.model_error &&
             a.ladder[bare_knee->best_index - 1].hit_rate >= kMinSecondaryHits) {
    a.verdict = SecondaryVerdict::kWithinModelError;
    a.metric = bare.metric;
    a.gain = bare.gains[bare_knee->best_index];
    a.gain_spread = bare.spreads[bare_knee->best_index];
    a.hit_rate = a.ladder[bare_knee->best_index - 1].hit_rate;
  } else if (a.prefix_tokens > 0 && a.disk_read_s + a.reload_s > a.recompute_s) {
    a.verdict = SecondaryVerdict::kDiskSlowerThanRecompute;
  } else if (a.gain < 0 || all_lose(curve)) {
    a.verdict = SecondaryVerdict::kCosts;
  } else {
    a.verdict = SecondaryVerdict::kBelowThreshold;
  }
}

}  // namespace

std::vector<double> secondary_ladder(double stated_gib, double cpu_gib) {
  std::vector<double> ladder;
  for (double share : {0.25, 0.5}) {
    const double gib = std::max(1.0, std::round(stated_gib * share));
    if (gib < stated_gib && gib > cpu_gib && (ladder.empty() || gib > ladder.back())) ladder.push_back(gib);
  }
  ladder.push_back(stated_gib);
  return ladder;
}

SecondaryTierAdvice judge_secondary_tier(const SecondaryAdviceRequest& req, const std::vector<double>& ladder,
                                         double cpu_gib, double cpu_block_bytes, TierObjective objective,
                                         const ExpectedError* expected, const TierCurvePoint& cpu_alone,
                                         const std::vector<SecondaryRun>& runs) {
  auto a = stated(req, cpu_gib, cpu_block_bytes);
  a.cpu_output_tokens_per_s = cpu_alone.output_tokens_per_s;
  a.cpu_ttft_p99_s = cpu_alone.ttft_p99_s;
  std::vector<TierCurvePoint> curve{cpu_alone};
  for (const auto& r : runs) curve.push_back(r.point);
  const auto j = judge_curve(curve, objective, expected);
  a.metric = j.metric;
  a.pays_gain = j.pays_gain;
  a.model_error = j.model_error;
  if (!runs.empty()) a.replicas = runs.front().replicas;
  for (std::size_t i = 0; i < runs.size() && i < ladder.size(); ++i) {
    const auto& r = runs[i];
    a.ladder.push_back({.gib = ladder[i],
                        .output_tokens_per_s = r.point.output_tokens_per_s,
                        .ttft_p99_s = r.point.ttft_p99_s,
                        .hit_rate = r.hit_rate,
                        .cpu_hit_rate = r.point.cpu_hit_rate,
                        .gain = j.gains[i + 1],
                        .gain_spread = j.spreads[i + 1],
                        .bytes_written = r.bytes_written,
                        .bytes_read = r.bytes_read,
                        .peak_gib = static_cast<double>(r.peak_blocks) * cpu_block_bytes / kGiB});
  }
  if (a.ladder.empty()) return a;
  auto knee = find_knee(j.knee_gains, kKneeShare, j.pays_gain);
  if (knee && a.ladder[knee->best_index - 1].hit_rate < kMinSecondaryHits) knee.reset();
  if (knee) {
    recommend(a, *knee, j);
  } else {
    refuse(a, curve, j, objective);
  }
  return a;
}

SecondaryTierAdvice advise_secondary_tier(TierCurve& sim, const TierRecommendation& rec,
                                          const SecondaryAdviceRequest& req, TierObjective objective) {
  const double cpu_gib = rec.pays ? rec.kv_offloading_size_gib : 0;
  if (cpu_gib <= 0) {
    auto a = stated(req, 0, sim.cpu_block_bytes());
    a.verdict = SecondaryVerdict::kNoCpuTier;
    return a;
  }
  const auto ladder = secondary_ladder(req.stated_gib, cpu_gib);
  std::vector<SecondaryTierFigures> tiers;
  for (double gib : ladder) {
    auto f = req.figures;
    f.blocks = cpu_blocks_for(gib, static_cast<std::int64_t>(sim.cpu_block_bytes()));
    tiers.push_back(f);
  }
  const int cpu = static_cast<int>(cpu_gib);
  try {
    const auto cpu_alone = sim.at(cpu);
    const auto runs = sim.with_secondary(cpu, tiers);
    return judge_secondary_tier(req, ladder, cpu_gib, sim.cpu_block_bytes(), objective,
                                rec.expected ? &*rec.expected : nullptr, cpu_alone, runs);
  } catch (const Interrupted&) {
    auto a = stated(req, cpu_gib, sim.cpu_block_bytes());
    a.verdict = SecondaryVerdict::kInterrupted;
    return a;
  }
}

}  // namespace kvb
