#pragma once
// The router in front of a fleet: picks a replica per request from what a real router knows —
// its own record of what it sent where and what is still unanswered, and what the replicas
// publish (queue depth and KV cache usage as metrics, cached blocks as KV events) — never a
// replica's private state. sim/fleet_simulation.cpp fills the states.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "fleet/fleet_spec.hpp"
#include "fleet/load_index.hpp"

namespace kvb {

// What the router knows of one replica when a request arrives.
struct ReplicaState {
  std::int64_t in_flight = 0;  // the router's own count: requests sent there, not yet answered
  std::int64_t waiting = 0;    // published queue depth (vLLM's num_requests_waiting)
  double kv_usage = 0;         // published GPU KV cache usage, 0 to 1 (kv_cache_usage_perc)
  // Leading blocks of this prompt it holds (its KV events): on the GPU, then in its CPU tier.
  std::int64_t gpu_prefix_blocks = 0;
  std::int64_t cpu_prefix_blocks = 0;
};

struct RoutedRequest {
  std::int64_t prompt_blocks = 0;  // the prompt's full blocks
  std::uint64_t affinity = 0;      // the conversation (session router)
};

// The session router's key for a request that names no conversation: its first two blocks, so
// requests sharing a prefix below a common system prompt stay together (as --trace-sample groups
// a trace's prefix trees).
std::uint64_t conversation_key(const std::vector<std::uint64_t>& blocks);

// llm-d's scorer weights for the prefix-aware router: its router's built-in profile (prefix-cache 3,
// queue 2, kv-cache-utilization 2: llm-d/llm-d-router pkg/epp/config/loader/defaults.go, the Helm
// chart's default since gateway-api-inference-extension v1.2.0), and the precise prefix index's
// tier weights (gpu 1.0, cpu 0.8: llm-d-kv-cache pkg/kvcache/backend.go).
struct RouterWeights {
  double prefix = 3;
  double queue = 2;
  double kv_usage = 2;
  double cpu_block = 0.8;  // a block held only in the CPU tier, against 1 on the GPU
};

class Router {
 public:
  // `seed`: ties between equal scores are broken at random, as llm-d's max-score picker shuffles
  // before it sorts (pkg/epp/framework/plugins/scheduling/picker/maxscore/picker.go).
  explicit Router(RouterKind kind, std::uint64_t seed = 1, RouterWeights weights = {});
  RouterKind kind() const { return kind_; }
  // Whether choose() reads ReplicaState::prefix_blocks (the fleet looks them up only then).
  bool reads_prefixes() const {
    return kind_ == RouterKind::kPrefixAware || kind_ == RouterKind::kPrefixApprox;
  }
  // The replica for `r`; the same seed and requests give the same choices.
  int choose(const RoutedRequest& r, const std::vector<ReplicaState>& replicas);
  // Whether choose() reads what the replicas publish; when not (round-robin, least-loaded,
  // session), the router's own counts are all it needs: choose(r, in_flight) below.
  bool reads_published_state() const { return reads_prefixes(); }
  // The same pick as choose(r, states) with states holding only these in-flight counts, without
  // a scan over the replicas. Only for a router that does not read published state.
  int choose(const RoutedRequest& r, const LoadIndex& in_flight);
  // The conversation has ended: the session router forgets it.
  void forget(std::uint64_t affinity) { sessions_.erase(affinity); }

  // One scorer's value for each replica, 0 (worst) to 1 (best); exposed for tests.
  static std::vector<double> prefix_scores(const RoutedRequest& r, const std::vector<ReplicaState>& replicas,
                                           double cpu_block_weight);
  static std::vector<double> queue_scores(const std::vector<ReplicaState>& replicas);
  static std::vector<double> kv_usage_scores(const std::vector<ReplicaState>& replicas);

 private:
  int least_loaded(const std::vector<ReplicaState>& replicas) const;
  int best_score(const RoutedRequest& r, const std::vector<ReplicaState>& replicas);

  RouterKind kind_;
  RouterWeights weights_;
  Rng rng_;
  std::int64_t turn_ = 0;                            // round-robin
  std::unordered_map<std::uint64_t, int> sessions_;  // session: conversation -> replica
};

}  // namespace kvb
