#include "fleet/router.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kvb {

std::uint64_t conversation_key(const std::vector<std::uint64_t>& blocks) {
  std::uint64_t key = 0x9e3779b97f4a7c15ULL;
  for (std::size_t i = 0; i < std::min<std::size_t>(2, blocks.size()); ++i)
    key = (key ^ blocks[i]) * 0x100000001b3ULL;
  return key;
}

Router::Router(RouterKind kind, std::uint64_t seed, RouterWeights weights)
    : kind_(kind), weights_(weights), rng_(seed ^ 0x5eedf1ee7ULL) {}

int Router::choose(const RoutedRequest& r, const std::vector<ReplicaState>& replicas) {
  const auto n = static_cast<std::int64_t>(replicas.size());
  if (n <= 1) return 0;
  switch (kind_) {
    case RouterKind::kRoundRobin:
      return static_cast<int>(turn_++ % n);
    case RouterKind::kLeastLoaded:
      return least_loaded(replicas);
    case RouterKind::kPrefixAware:
    case RouterKind::kPrefixApprox:
      return best_score(r, replicas);
    case RouterKind::kSession: {
      const auto [it, fresh] = sessions_.try_emplace(r.affinity, 0);
      if (fresh) it->second = least_loaded(replicas);
      return it->second;
    }
  }
  return 0;
}

int Router::choose(const RoutedRequest& r, const LoadIndex& in_flight) {
  if (reads_published_state())
    throw std::logic_error("Router::choose: this router reads the replicas' published state");
  if (in_flight.size() <= 1) return 0;
  switch (kind_) {
    case RouterKind::kRoundRobin:
      return static_cast<int>(turn_++ % in_flight.size());
    case RouterKind::kSession: {
      const auto [it, fresh] = sessions_.try_emplace(r.affinity, 0);
      if (fresh) it->second = in_flight.least_loaded();
      return it->second;
    }
    default:  // least-loaded
      return in_flight.least_loaded();
  }
}

int Router::least_loaded(const std::vector<ReplicaState>& replicas) const {
  const auto fewest = std::min_element(replicas.begin(), replicas.end(), [](const auto& a, const auto& b) {
    return a.in_flight < b.in_flight;
  });
  return static_cast<int>(fewest - replicas.begin());
}

// Matched blocks / the prompt's blocks, a CPU-only block counting `cpu_block_weight` and the
// weighted count truncated to a whole block, as llm-d's precise prefix producer counts them
// (llm-d-router pkg/kvcache/kvblock_scorer.go; the scorer divides by the total blocks).
std::vector<double> Router::prefix_scores(const RoutedRequest& r, const std::vector<ReplicaState>& replicas,
                                          double cpu_block_weight) {
  std::vector<double> out;
  for (const auto& s : replicas) {
    const double matched = std::floor(static_cast<double>(s.gpu_prefix_blocks) +
                                      cpu_block_weight * static_cast<double>(s.cpu_prefix_blocks));
    out.push_back(r.prompt_blocks > 0 ? std::min(1.0, matched / static_cast<double>(r.prompt_blocks)) : 0.0);
  }
  return out;
}

std::vector<double> Router::queue_scores(const std::vector<ReplicaState>& replicas) {
  // Min-max normalised queue depth, the shortest queue scoring 1; all equal: 1 each.
  std::int64_t lo = replicas.front().waiting, hi = lo;
  for (const auto& s : replicas) {
    lo = std::min(lo, s.waiting);
    hi = std::max(hi, s.waiting);
  }
  std::vector<double> out;
  for (const auto& s : replicas) {
    out.push_back(hi == lo ? 1.0 : static_cast<double>(hi - s.waiting) / static_cast<double>(hi - lo));
  }
  return out;
}

std::vector<double> Router::kv_usage_scores(const std::vector<ReplicaState>& replicas) {
  std::vector<double> out;
  for (const auto& s : replicas) out.push_back(1.0 - std::clamp(s.kv_usage, 0.0, 1.0));
  return out;
}

// The weighted sum of the scorers, not divided by the weights' sum (llm-d-router
// pkg/epp/scheduling/scheduler_profile.go); the best score wins, a tie at random.
int Router::best_score(const RoutedRequest& r, const std::vector<ReplicaState>& replicas) {
  const auto prefix = prefix_scores(r, replicas, weights_.cpu_block);
  const auto queue = queue_scores(replicas);
  const auto kv = kv_usage_scores(replicas);
  std::vector<int> best;
  double best_score = -1;
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const double score = weights_.prefix * prefix[i] + weights_.queue * queue[i] + weights_.kv_usage * kv[i];
    if (score > best_score) {
      best_score = score;
      best.clear();
    }
    if (score == best_score) best.push_back(static_cast<int>(i));
  }
  return best[static_cast<std::size_t>(rng_.below(best.size()))];
}

}  // namespace kvb
