#include "dma/method_ranking.hpp"

#include <algorithm>

namespace kvb {

bool counts_in_ranking(const DmaRecord& r) { return !r.waived && r.verified; }

MethodRanking rank_methods(const std::vector<const DmaRecord*>& records) {
  MethodRanking ranking;
  for (const auto* r : records) {
    if (!counts_in_ranking(*r)) continue;
    ranking[{r->tcase.block_bytes, r->tcase.layers}][r->tcase.direction].push_back(r);
  }
  for (auto& [block, directions] : ranking) {
    for (auto& [direction, list] : directions) {
      // Ties keep the records' order (the methods as measured), so the output is stable.
      std::stable_sort(list.begin(), list.end(), [](const DmaRecord* a, const DmaRecord* b) {
        return a->median_gbps > b->median_gbps;
      });
    }
  }
  return ranking;
}

}  // namespace kvb
