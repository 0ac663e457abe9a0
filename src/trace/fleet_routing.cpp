#include "trace/fleet_routing.hpp"

#include <algorithm>

#include "core/errors.hpp"

namespace kvb {

TraceRouter::TraceRouter(const FleetSpec& fleet, std::uint64_t seed)
    : fleet_(fleet),
      router_(fleet.router, seed),
      sent_(static_cast<std::size_t>(fleet.router == RouterKind::kPrefixAware ||
                                             fleet.router == RouterKind::kPrefixApprox
                                         ? fleet.replicas
                                         : 0)),
      requests_(static_cast<std::size_t>(fleet.replicas), 0),
      states_(static_cast<std::size_t>(fleet.replicas)) {
  if (fleet.router == RouterKind::kLeastLoaded && fleet.replicas > 1) {
    throw UsageError(
        "--router least-loaded: a trace alone holds no service times to count requests in flight; expected "
        "round-robin, prefix-aware or session (kvbench simulate --trace routes least-loaded with the "
        "engines' loads)");
  }
}

int TraceRouter::route(const TraceRequest& r) {
  if (fleet_.replicas <= 1) return 0;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    auto& s = states_[i];
    s = ReplicaState{};
    // Without service times the router's own count of what it sent stands for load: the
    // queue scorer balances it against the prefix scorer.
    s.in_flight = requests_[i];
    s.waiting = requests_[i];
    if (!sent_.empty()) {
      while (static_cast<std::size_t>(s.gpu_prefix_blocks) < r.block_ids.size() &&
             sent_[i].count(r.block_ids[static_cast<std::size_t>(s.gpu_prefix_blocks)]) > 0) {
        ++s.gpu_prefix_blocks;
      }
    }
  }
  const RoutedRequest routed{static_cast<std::int64_t>(r.block_ids.size()), conversation_key(r.block_ids)};
  const int replica = router_.choose(routed, states_);
  ++requests_[static_cast<std::size_t>(replica)];
  if (!sent_.empty()) sent_[static_cast<std::size_t>(replica)].insert(r.block_ids.begin(), r.block_ids.end());
  return replica;
}

}  // namespace kvb
