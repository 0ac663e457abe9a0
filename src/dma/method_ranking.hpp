#pragma once
// Which copy method is fastest for each block: one ranking for every printer (the dma table's
// closing lines and the report's best-method table), so the two cannot disagree.
#include <cstdint>
#include <map>
#include <vector>

#include "dma/dma_record.hpp"

namespace kvb {

// A block as the ranking keys it: its bytes and the layers it is split into (per-layer layouts
// copy one fragment per layer, so they are ranked apart from one contiguous block).
struct RankedBlock {
  std::uint64_t block_bytes = 0;
  int layers = 1;
  auto operator<=>(const RankedBlock&) const = default;
};

// Measured and verified records only: a waived or unverified copy ranks nowhere.
bool counts_in_ranking(const DmaRecord& r);

// Per block and direction, the records fastest first (median GB/s), in block order.
using MethodRanking = std::map<RankedBlock, std::map<Direction, std::vector<const DmaRecord*>>>;
MethodRanking rank_methods(const std::vector<const DmaRecord*>& records);

}  // namespace kvb
