#pragma once
// The router's count of unanswered requests per replica, kept so that the least loaded replica
// (the lowest index among the fewest, as a scan would find it) is known without a scan: a
// tournament tree, O(log N) per change and O(1) per question. A fleet asks once per request and
// changes it twice, so routing costs what its requests cost, not what its replicas do.
#include <cstdint>
#include <vector>

namespace kvb {

class LoadIndex {
 public:
  explicit LoadIndex(int replicas = 0);

  int size() const { return replicas_; }
  std::int64_t load(int replica) const { return load_[static_cast<std::size_t>(replica)]; }
  // Adds `delta` (may be negative) to one replica's count.
  void add(int replica, std::int64_t delta);
  // The lowest index among the replicas with the smallest count; 0 for an empty fleet.
  int least_loaded() const { return replicas_ == 0 ? 0 : winner_[1]; }

 private:
  int better(int a, int b) const;

  int replicas_ = 0;
  std::size_t leaves_ = 1;  // a power of two >= replicas_: leaf i is node leaves_ + i
  std::vector<std::int64_t> load_;
  std::vector<int> winner_;  // node -> the replica that wins its subtree (-1: no replica)
};

}  // namespace kvb
