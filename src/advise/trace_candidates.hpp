#pragma once
// `size --trace`: the tier sizes worth simulating, read off the trace's miss-ratio curve, so a
// recommendation over a real trace simulates a handful of sizes instead of a grid.
#include <optional>
#include <string>
#include <vector>

#include "size/tier_advice_facts.hpp"
#include "trace/trace_analysis.hpp"

namespace kvb {

struct TraceCandidates {
  std::vector<int> sizes_gib;  // ascending, whole GiB, above vLLM's floor and within the cap
  // The curve at the cap and the floor, then how each size was chosen and the hit rate the curve
  // gives it (the recommendation's first steps; output/size/tier_advice_text words them).
  std::optional<TraceCurveStep> curve_step;
  TraceCandidatesStep picked;
  double hit_rate_at_cap = 0;  // what a prefix cache of the cap's size serves
  double unbounded_hit_rate = 0;
  std::vector<std::pair<double, double>> curve_gib;  // the curve up to the cap: (GiB, prefix hit rate)
};

// Shares of the curve's hit rate at the cap whose sizes become candidates: where it bends from
// rising steeply to flat.
inline constexpr double kCandidateShares[] = {0.5, 0.8, 0.9, 0.95, 0.99};

// `gib_per_block`: GiB one trace block (block_tokens tokens) takes on this server, all ranks.
// The curve is of one cache holding the prefix blocks; vLLM's tier is write-through (it mirrors
// the GPU pool), so a tier of S GiB above the floor serves about what a cache of S GiB would.
TraceCandidates trace_candidates(const TraceAnalysis& a, double gib_per_block, double floor_gib,
                                 double cap_gib);

}  // namespace kvb
