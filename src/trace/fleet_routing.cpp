#include "trace/fleet_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {

TraceRouter::TraceRouter(const FleetSpec& fleet, std::uint64_t seed)
    : fleet_(fleet),
      router_(fleet.router, seed),
      by_prefix_(fleet.router == RouterKind::kPrefixAware || fleet.router == RouterKind::kPrefixApprox),
      requests_(static_cast<std::size_t>(fleet.replicas), 0),
      states_(static_cast<std::size_t>(fleet.replicas)) {
  if (fleet.router == RouterKind::kLeastLoaded && fleet.replicas > 1) {
    // Every router but this one, from the one list, so a new router cannot be left out.
    std::vector<std::string> others;
    for (const auto& name : router_names()) {
      if (name != to_string(RouterKind::kLeastLoaded)) others.push_back(name);
    }
    throw UsageError(fmt::format(
        "--router least-loaded: a trace alone holds no service times to count requests in flight; expected "
        "{} (kvbench simulate --trace routes least-loaded with the engines' loads)",
        join(others, ", ")));
  }
}

// Each replica's longest prefix of `r` it was sent before: the replicas sent block 0, narrowed
// to those also sent block 1, and so on, until none is left.
void TraceRouter::score_prefixes(const TraceRequest& r) {
  alive_.clear();
  for (std::size_t k = 0; k < r.block_ids.size(); ++k) {
    const auto it = holders_.find(r.block_ids[k]);
    if (it == holders_.end()) return;
    if (k == 0) {
      alive_ = it->second;
    } else {
      next_.clear();
      std::set_intersection(alive_.begin(), alive_.end(), it->second.begin(), it->second.end(),
                            std::back_inserter(next_));
      alive_.swap(next_);
    }
    if (alive_.empty()) return;
    for (const auto a : alive_)
      states_[static_cast<std::size_t>(a)].gpu_prefix_blocks = static_cast<std::int64_t>(k + 1);
  }
}

void TraceRouter::record(const TraceRequest& r, int replica) {
  const auto id = static_cast<std::int32_t>(replica);
  for (const auto block : r.block_ids) {
    auto& replicas = holders_[block];
    const auto at = std::lower_bound(replicas.begin(), replicas.end(), id);
    if (at == replicas.end() || *at != id) replicas.insert(at, id);
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
  }
  if (by_prefix_) score_prefixes(r);
  const RoutedRequest routed{static_cast<std::int64_t>(r.block_ids.size()), conversation_key(r.block_ids)};
  const int replica = router_.choose(routed, states_);
  ++requests_[static_cast<std::size_t>(replica)];
  if (by_prefix_) record(r, replica);
  return replica;
}

}  // namespace kvb
