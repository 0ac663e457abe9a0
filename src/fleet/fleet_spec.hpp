#pragma once
// A fleet: N identical vLLM replicas behind one router (scenario keys `replicas` and `router`,
// flags --replicas and --router). One replica is one engine, as vLLM serves alone.
#include <string>
#include <vector>

namespace kvb {

// How the router picks a replica per request (sim/router.hpp has each rule and its source).
enum class RouterKind {
  kRoundRobin,    // a plain load balancer: replicas in turn
  kLeastLoaded,   // fewest requests in flight, as the router counts them
  kPrefixAware,   // llm-d's endpoint picker: prefix-cache, queue and KV-utilization scorers
  kSession,       // a conversation sticks to the replica its first turn went to
  kPrefixApprox,  // the same scorers, the prefix from the router's own record of sends
};

inline constexpr int kMaxReplicas = 4096;

struct FleetSpec {
  int replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  bool operator==(const FleetSpec&) const = default;
};

std::string to_string(RouterKind k);
// Throws UsageError naming `what` and the accepted names.
RouterKind parse_router(const std::string& name, const std::string& what);
std::vector<std::string> router_names();
// Throws UsageError naming `what` unless 1 <= n <= kMaxReplicas.
int checked_replicas(long long n, const std::string& what);

}  // namespace kvb
