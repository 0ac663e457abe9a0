#include "trace/miss_ratio.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kvb {

PrefixMissRatio::PrefixMissRatio(std::int64_t block_tokens)
    : block_tokens_(block_tokens), fenwick_(1025, 0) {}

void PrefixMissRatio::fenwick_add(std::size_t pos, int delta) {
  for (; pos < fenwick_.size(); pos += pos & (~pos + 1)) fenwick_[pos] += delta;
}

std::int64_t PrefixMissRatio::fenwick_prefix(std::size_t pos) const {
  std::int64_t sum = 0;
  for (; pos > 0; pos -= pos & (~pos + 1)) sum += fenwick_[pos];
  return sum;
}

// Renumbers the live slots 1..n in time order and rebuilds the tree with room for as many again.
void PrefixMissRatio::compact() {
  std::vector<std::pair<std::size_t, std::uint64_t>> live;
  live.reserve(last_access_.size());
  for (const auto& [id, slot] : last_access_) live.emplace_back(slot, id);
  std::sort(live.begin(), live.end());
  fenwick_.assign(std::max<std::size_t>(2 * live.size(), 1024) + 1, 0);
  now_ = 0;
  for (const auto& [slot, id] : live) {
    last_access_[id] = ++now_;
    fenwick_add(now_, 1);
  }
}

std::int64_t PrefixMissRatio::stack_distance(std::uint64_t id) {
  if (now_ + 1 >= fenwick_.size()) compact();
  std::int64_t distance = 0;
  const auto it = last_access_.find(id);
  if (it != last_access_.end()) {
    // Distinct blocks touched since its last access, plus itself: its place in the LRU stack.
    distance = live_ - fenwick_prefix(it->second) + 1;
    fenwick_add(it->second, -1);
    --live_;
  }
  ++now_;
  fenwick_add(now_, 1);
  ++live_;
  last_access_[id] = now_;
  return distance;
}

void PrefixMissRatio::add(const TraceRequest& r) {
  std::int64_t effective = 0;  // the largest distance so far in this request; -1 once a block is new
  for (std::size_t b = 0; b < r.block_ids.size(); ++b) {
    const auto first_token = static_cast<std::int64_t>(b) * block_tokens_;
    const double tokens = static_cast<double>(std::min(block_tokens_, r.prompt_tokens - first_token));
    prompt_tokens_ += tokens;
    const auto d = stack_distance(r.block_ids[b]);
    if (d == 0) effective = -1;  // a cold block: it and everything after it miss at any size
    if (effective < 0) continue;
    effective = std::max(effective, d);
    const auto index = static_cast<std::size_t>(effective);
    if (tokens_at_distance_.size() <= index) tokens_at_distance_.resize(index + 1, 0.0);
    tokens_at_distance_[index] += tokens;
  }
}

double PrefixMissRatio::hit_rate_at(std::int64_t blocks) const {
  if (prompt_tokens_ <= 0) return 0;
  double hit = 0;
  const auto end = std::min<std::size_t>(tokens_at_distance_.size(),
                                         static_cast<std::size_t>(std::max<std::int64_t>(blocks, 0)) + 1);
  for (std::size_t d = 1; d < end; ++d) hit += tokens_at_distance_[d];
  return hit / prompt_tokens_;
}

double PrefixMissRatio::unbounded_hit_rate() const {
  return hit_rate_at(static_cast<std::int64_t>(tokens_at_distance_.size()));
}

std::vector<MissRatioPoint> PrefixMissRatio::curve(int points) const { return hit_curve().sample(points); }

HitCurve::HitCurve(const std::vector<double>& tokens_at_distance, double prompt_tokens)
    : within_(std::max<std::size_t>(tokens_at_distance.size(), 1), 0.0), prompt_tokens_(prompt_tokens) {
  // One running sum over the distances (index 0 holds no hit: distance 0 is a cold block).
  for (std::size_t d = 1; d < tokens_at_distance.size(); ++d)
    within_[d] = within_[d - 1] + tokens_at_distance[d];
}

std::int64_t HitCurve::largest_distance() const { return static_cast<std::int64_t>(within_.size()) - 1; }

double HitCurve::hit_rate_at(std::int64_t blocks) const {
  if (prompt_tokens_ <= 0 || within_.empty() || blocks <= 0) return 0;
  return within_[static_cast<std::size_t>(std::min(blocks, largest_distance()))] / prompt_tokens_;
}

double HitCurve::unbounded_hit_rate() const { return hit_rate_at(largest_distance()); }

std::vector<MissRatioPoint> HitCurve::sample(int points) const {
  std::vector<MissRatioPoint> out;
  const auto largest = largest_distance();
  if (largest < 1 || prompt_tokens_ <= 0) return out;
  std::int64_t previous = 0;
  for (int i = 0; i <= points; ++i) {
    const auto blocks = static_cast<std::int64_t>(
        std::llround(std::pow(static_cast<double>(largest), i / static_cast<double>(points))));
    if (blocks <= previous) continue;
    previous = blocks;
    out.push_back({blocks, hit_rate_at(blocks)});
  }
  return out;
}

}  // namespace kvb
