#include "advise/trace_candidates.hpp"

#include <algorithm>
#include <cmath>

namespace kvb {
namespace {

// The curve's hit rate for a cache of `gib` (the curve is a step function of exact points).
double hit_rate_within(const TraceAnalysis& a, double gib_per_block, double gib) {
  double hit = 0;
  for (const auto& p : a.curve) {
    if (static_cast<double>(p.blocks) * gib_per_block <= gib) hit = std::max(hit, p.prefix_hit_rate);
  }
  return hit;
}

// The smallest size on the curve that serves `target`, in GiB.
double size_for(const TraceAnalysis& a, double gib_per_block, double target) {
  for (const auto& p : a.curve) {
    if (p.prefix_hit_rate >= target) return static_cast<double>(p.blocks) * gib_per_block;
  }
  return a.curve.empty() ? 0 : static_cast<double>(a.curve.back().blocks) * gib_per_block;
}

}  // namespace

TraceCandidates trace_candidates(const TraceAnalysis& a, double gib_per_block, double floor_gib,
                                 double cap_gib) {
  TraceCandidates c;
  c.unbounded_hit_rate = a.unbounded_prefix_hit_rate;
  c.hit_rate_at_cap = hit_rate_within(a, gib_per_block, cap_gib);
  for (const auto& p : a.curve) {
    const double gib = static_cast<double>(p.blocks) * gib_per_block;
    if (gib <= cap_gib) c.curve_gib.emplace_back(gib, p.prefix_hit_rate);
  }
  const int lowest =
      static_cast<int>(std::floor(floor_gib)) + 1;  // the smallest tier that adds to the GPU pool
  const int highest = static_cast<int>(std::floor(cap_gib));
  if (highest < lowest) return c;
  c.curve_step = TraceCurveStep{.requests = a.requests,
                                .unbounded_hit_rate = c.unbounded_hit_rate,
                                .cap_gib = cap_gib,
                                .hit_rate_at_cap = c.hit_rate_at_cap,
                                .floor_gib = floor_gib,
                                .hit_rate_at_floor = hit_rate_within(a, gib_per_block, floor_gib)};
  const auto add = [&](double gib, CandidateKind kind, double share = 0) {
    const int whole = std::clamp(static_cast<int>(std::ceil(gib)), lowest, highest);
    if (std::find(c.sizes_gib.begin(), c.sizes_gib.end(), whole) != c.sizes_gib.end()) return;
    c.sizes_gib.push_back(whole);
    c.picked.picked.push_back(TraceCandidate{
        .gib = whole, .kind = kind, .share = share, .hit_rate = hit_rate_within(a, gib_per_block, whole)});
  };
  add(lowest, CandidateKind::kAboveFloor);
  if (c.hit_rate_at_cap > 0) {
    for (const double share : kCandidateShares) {
      add(size_for(a, gib_per_block, share * c.hit_rate_at_cap), CandidateKind::kShareOfCap, share);
    }
  }
  // Still rising at the cap: the cap itself is a candidate (more DRAM would pay).
  if (c.hit_rate_at_cap < 0.99 * c.unbounded_hit_rate) add(highest, CandidateKind::kCapStillRising);
  std::sort(c.sizes_gib.begin(), c.sizes_gib.end());
  return c;
}

}  // namespace kvb
