#pragma once
// What the CPU tier's mechanisms (sim/tier_costs.hpp) keep between an engine's events, one small
// struct per mechanism that needs any, and which mechanisms act on the engine at all.
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/sim_time.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {

// connector-cpu: the worker's and scheduler's CPU work since the last step started.
struct ConnectorCpuState {
  double submit_s = 0;              // copy submissions
  std::int64_t blocks_touched = 0;  // blocks of storing requests touched
};

// preempt-flush: the next step waits until then for a preempted request's stores.
struct PreemptFlushState {
  SimTime until{};
};

// finish-hold: finished requests whose blocks the connector keeps, in the order they end.
struct FinishHoldState {
  struct Hold {
    std::int64_t until_step = 0;  // the blocks return to the pool when this step ends
    std::int64_t request = 0;
  };
  std::deque<Hold> holds;
};

// fabric-sharing: the share of the running step during which its all-reduces use the links.
struct FabricSharingState {
  double step_share = 0;
};

// load-polling: loads done during the running step, seen when it ends.
struct LoadPollingState {
  std::vector<std::int64_t> seen;
};

// load-convoy: requests waiting on another request's load of their CPU hits.
struct LoadConvoyState {
  std::deque<std::int64_t> waiting;
};

// lmcache-sync: LMCache's retrieves in the step being scheduled, and whether the running step's
// stores have been made.
struct LmcacheSyncState {
  double load_s = 0;
  bool stores_done = false;
};

struct TierCostState {
  // The mechanisms that act on this engine: fixed for a run (active_tier_costs).
  TierCostSet active = TierCostSet::none();
  bool on(TierCost c) const { return active.on(c); }

  ConnectorCpuState connector_cpu;
  PreemptFlushState preempt_flush;
  FinishHoldState finish_hold;
  FabricSharingState fabric_sharing;
  LoadPollingState load_polling;
  LoadConvoyState load_convoy;
  LmcacheSyncState lmcache_sync;
};

}  // namespace kvb
