#include "fleet/load_index.hpp"

namespace kvb {

LoadIndex::LoadIndex(int replicas) : replicas_(replicas) {
  while (leaves_ < static_cast<std::size_t>(replicas)) leaves_ *= 2;
  load_.assign(static_cast<std::size_t>(replicas), 0);
  winner_.assign(2 * leaves_, -1);
  for (int i = 0; i < replicas; ++i) winner_[leaves_ + static_cast<std::size_t>(i)] = i;
  for (std::size_t node = leaves_ - 1; node >= 1; --node)
    winner_[node] = better(winner_[2 * node], winner_[2 * node + 1]);
}

// Fewer wins; equal counts go to the lower index (the left subtree's), as a scan's first
// minimum does.
int LoadIndex::better(int a, int b) const {
  if (a < 0) return b;
  if (b < 0) return a;
  const auto la = load_[static_cast<std::size_t>(a)], lb = load_[static_cast<std::size_t>(b)];
  if (la != lb) return la < lb ? a : b;
  return a < b ? a : b;
}

void LoadIndex::add(int replica, std::int64_t delta) {
  load_[static_cast<std::size_t>(replica)] += delta;
  for (std::size_t node = (leaves_ + static_cast<std::size_t>(replica)) / 2; node >= 1; node /= 2)
    winner_[node] = better(winner_[2 * node], winner_[2 * node + 1]);
}

}  // namespace kvb
