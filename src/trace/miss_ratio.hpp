#pragma once
// The miss-ratio curve of a prefix cache over a trace, in one pass: LRU stack distances (Mattson)
// over the stream of prompt blocks, with prefix semantics: a block is served only when every block
// before it in the request is too, so a block's effective distance is the largest distance of the
// request's blocks up to it. A cache of C blocks serves exactly the blocks whose effective
// distance is at most C. Exact: memory is one entry per distinct block (a hash map and a Fenwick
// tree over last-access times, compacted as it fills), never per request.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/trace_request.hpp"

namespace kvb {

struct MissRatioPoint {
  std::int64_t blocks = 0;     // cache capacity in blocks of block_tokens
  double prefix_hit_rate = 0;  // share of all prompt tokens a cache this large serves
};

// The exact curve a pass leaves: the prompt tokens a cache of each capacity serves, read at any
// capacity in constant time (the sampled curve and trace/tier_levels' shares read the same one).
// One entry per effective distance seen: never more than the trace's distinct blocks.
class HitCurve {
 public:
  HitCurve() = default;
  HitCurve(const std::vector<double>& tokens_at_distance, double prompt_tokens);
  // Share of prompt tokens a cache of `blocks` serves; beyond the largest distance, the unbounded share.
  double hit_rate_at(std::int64_t blocks) const;
  double unbounded_hit_rate() const;
  std::int64_t largest_distance() const;
  // About `points` capacities from 1 block to the largest distance (geometric), each exact.
  std::vector<MissRatioPoint> sample(int points) const;

 private:
  std::vector<double> within_;  // [d]: tokens whose effective distance is 1..d
  double prompt_tokens_ = 0;
};

class PrefixMissRatio {
 public:
  explicit PrefixMissRatio(std::int64_t block_tokens);
  void add(const TraceRequest& r);

  std::int64_t distinct_blocks() const { return static_cast<std::int64_t>(last_access_.size()); }
  double prompt_tokens() const { return prompt_tokens_; }
  // Share of prompt tokens an unbounded prefix cache serves (every block seen before, in order).
  double unbounded_hit_rate() const;
  // The curve at about `points` capacities from 1 block to the largest effective distance
  // (geometric), each the exact share a cache of that many blocks serves.
  std::vector<MissRatioPoint> curve(int points = 48) const;
  double hit_rate_at(std::int64_t blocks) const;
  HitCurve hit_curve() const { return HitCurve(tokens_at_distance_, prompt_tokens_); }

 private:
  std::int64_t stack_distance(std::uint64_t id);  // 0 = never seen; then records the access
  void fenwick_add(std::size_t pos, int delta);
  std::int64_t fenwick_prefix(std::size_t pos) const;
  void compact();

  std::int64_t block_tokens_;
  std::unordered_map<std::uint64_t, std::size_t> last_access_;  // block -> its latest time slot
  std::vector<int> fenwick_;                                    // 1 at each block's latest slot
  std::size_t now_ = 0;
  std::int64_t live_ = 0;
  std::vector<double> tokens_at_distance_;  // index: effective distance
  double prompt_tokens_ = 0;
};

}  // namespace kvb
