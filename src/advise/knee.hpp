#pragma once
// The knee of a gain curve: the smallest size that reaches a share (95%) of the best gain.
#include <cstddef>
#include <optional>
#include <vector>

namespace kvb {

struct Knee {
  std::size_t index = 0;  // into the curve, sizes ascending
  double best_gain = 0;
  std::size_t best_index = 0;
};

// `gains[i]` for sizes in ascending order, `gains[0]` the point without a tier (gain 0). None when
// the best gain is below `min_gain` (offloading does not pay).
std::optional<Knee> find_knee(const std::vector<double>& gains, double share = 0.95, double min_gain = 0.02);

}  // namespace kvb
