#pragma once
// The Mann-Whitney U test (Wilcoxon rank-sum) and the Hodges-Lehmann shift with its
// distribution-free confidence interval: how `kvbench compare` decides whether two sets of
// timing samples differ, without assuming they are normal (timings rarely are).
#include <vector>

namespace kvb {

struct RankSumTest {
  double u = 0;            // U of the first sample: pairs (a, b) with a > b, ties counted 1/2
  double p_two_sided = 1;  // exact for small samples without ties, else normal with tie correction
  bool exact = false;
};

// Empty inputs give p = 1.
RankSumTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

struct ShiftEstimate {
  double shift = 0;  // median of all pairwise differences b_j - a_i
  double low = 0;    // confidence interval of the shift
  double high = 0;
};

// Hodges-Lehmann estimate of the shift from a to b, with a `confidence` interval (e.g. 0.95) from
// the order statistics of the pairwise differences. Large samples are thinned evenly to keep the
// pairs under about a million. Requires both samples non-empty.
ShiftEstimate hodges_lehmann_shift(const std::vector<double>& a, const std::vector<double>& b,
                                   double confidence);

// The standard normal quantile, for the interval's critical value.
double normal_quantile(double p);

}  // namespace kvb
