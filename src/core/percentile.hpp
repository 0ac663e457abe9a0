#pragma once
// Percentiles, in one place for dma statistics, simulated latencies and compare's shift estimate.
#include <vector>

namespace kvb {

// The q-quantile (q in [0, 1]) of already sorted values, linearly interpolated between the two
// nearest order statistics (numpy's default, "linear"); 0 for no values.
double percentile_sorted(const std::vector<double>& sorted, double q);

}  // namespace kvb
