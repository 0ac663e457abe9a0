#include "fleet/sent_prefix_index.hpp"

#include <algorithm>

namespace kvb {

std::int64_t SentPrefixIndex::match(const std::vector<std::uint64_t>& prefix_hashes) const {
  std::int64_t n = 0;
  for (const auto h : prefix_hashes) {
    if (where_.find(h) == where_.end()) break;
    ++n;
  }
  return n;
}

void SentPrefixIndex::record(const std::vector<std::uint64_t>& prefix_hashes) {
  for (const auto h : prefix_hashes) {
    if (const auto it = where_.find(h); it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);  // sent again: the most recent
      continue;
    }
    order_.push_front(h);
    where_.emplace(h, order_.begin());
  }
  while (static_cast<std::int64_t>(order_.size()) > capacity_) {
    where_.erase(order_.back());
    order_.pop_back();
  }
}

std::vector<std::uint64_t> sent_prefix_hashes(const std::vector<std::uint64_t>& block_hashes,
                                              std::int64_t prompt_tokens, int block_size) {
  std::vector<std::uint64_t> out;
  const int stride = std::max(1, kSentPrefixBlockTokens / std::max(1, block_size));
  const auto blocks = std::min<std::int64_t>(prompt_tokens / kSentPrefixBlockTokens,
                                             static_cast<std::int64_t>(block_hashes.size()) / stride);
  for (std::int64_t k = 1; k <= blocks; ++k)
    out.push_back(block_hashes[static_cast<std::size_t>(k * stride - 1)]);
  return out;
}

}  // namespace kvb
