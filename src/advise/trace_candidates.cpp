#include "advise/trace_candidates.hpp"

#include <fmt/format.h>

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

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

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
  c.reasons.push_back(
      fmt::format("the trace's miss-ratio curve (computed: an LRU prefix cache over {} requests): an "
                  "unbounded cache serves {} of prompt tokens, one of the {:.0f} GiB host-DRAM cap {}, "
                  "one of the {:.1f} GiB GPU pool {}",
                  a.requests, percent(c.unbounded_hit_rate), cap_gib, percent(c.hit_rate_at_cap), floor_gib,
                  percent(hit_rate_within(a, gib_per_block, floor_gib))));
  std::vector<std::string> picked;
  const auto add = [&](double gib, const std::string& why) {
    const int whole = std::clamp(static_cast<int>(std::ceil(gib)), lowest, highest);
    if (std::find(c.sizes_gib.begin(), c.sizes_gib.end(), whole) != c.sizes_gib.end()) return;
    c.sizes_gib.push_back(whole);
    picked.push_back(
        fmt::format("{} GiB ({}: {})", whole, why, percent(hit_rate_within(a, gib_per_block, whole))));
  };
  add(lowest, "vLLM's floor + 1");
  if (c.hit_rate_at_cap > 0) {
    for (const double share : kCandidateShares) {
      add(size_for(a, gib_per_block, share * c.hit_rate_at_cap),
          fmt::format("{:.0f}% of the cap's hit rate", share * 100));
    }
  }
  // Still rising at the cap: the cap itself is a candidate (more DRAM would pay).
  if (c.hit_rate_at_cap < 0.99 * c.unbounded_hit_rate) add(highest, "the cap, the curve still rising");
  std::sort(c.sizes_gib.begin(), c.sizes_gib.end());
  std::string list;
  for (const auto& p : picked) list += (list.empty() ? "" : ", ") + p;
  c.reasons.push_back(
      "simulated sizes from the curve's bends, each with the prefix hit rate the curve gives it: " + list);
  return c;
}

}  // namespace kvb
