#include "advise/knee.hpp"

namespace kvb {

std::optional<Knee> find_knee(const std::vector<double>& gains, double share, double min_gain) {
  if (gains.size() < 2) return std::nullopt;
  Knee k;
  k.best_index = 1;
  for (std::size_t i = 1; i < gains.size(); ++i) {
    if (gains[i] > gains[k.best_index]) k.best_index = i;
  }
  k.best_gain = gains[k.best_index];
  if (!(k.best_gain >= min_gain)) return std::nullopt;
  for (std::size_t i = 1; i < gains.size(); ++i) {
    if (gains[i] >= share * k.best_gain) {
      k.index = i;
      break;
    }
  }
  return k;
}

}  // namespace kvb
