#include "trace/fleet_routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/strings.hpp"

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
