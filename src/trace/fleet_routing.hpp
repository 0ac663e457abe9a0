#pragma once
// A cluster's trace split over the replicas of a fleet, as its router would send it, without a
// simulation: nothing here knows how long a request takes, so the router knows only what it sent
// where. Round-robin and session route as they would; prefix-aware scores each replica by the
// longest prefix of the request it has been sent before (llm-d's approximate prefix-cache scorer,
// its own record of sends, here unbounded) with the requests it sent each replica as the load its
// queue scorer balances; least-loaded needs service times and is refused.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fleet/router.hpp"
#include "trace/trace_request.hpp"

namespace kvb {

class TraceRouter {
 public:
  // Throws UsageError for least-loaded (`simulate --trace` routes it with the engines' loads).
  TraceRouter(const FleetSpec& fleet, std::uint64_t seed = 1);
  int route(const TraceRequest& r);

 private:
  FleetSpec fleet_;
  Router router_;
  // prefix-aware: each block id -> the replicas it was sent to (ascending). Indexed by block, not
  // by replica, so scoring a request costs its prefix hits, not a lookup in every replica's record
  // (10^6 requests over 4,096 replicas took an hour that way).
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> holders_;
  bool by_prefix_ = false;
  std::vector<std::int64_t> requests_;  // sent to each replica so far
  std::vector<ReplicaState> states_;
  std::vector<std::int32_t> alive_, next_;  // the replicas sent every block so far (route's scratch)
  void score_prefixes(const TraceRequest& r);
  void record(const TraceRequest& r, int replica);
};

}  // namespace kvb
