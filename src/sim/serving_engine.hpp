#pragma once
// One vLLM engine's state and event handlers. serving_engine.cpp handles requests, transfers and
// metrics; step_scheduler.cpp decides what each engine step computes; step_costs.cpp what an
// enabled CPU tier adds to steps and copies (sim/tier_costs.hpp). The traffic, the clock and the
// router are the fleet's (sim/fleet_simulation.hpp), also for one engine.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "fleet/router.hpp"
#include "sim/engine_counters.hpp"
#include "sim/engine_loop.hpp"
#include "sim/event_queue.hpp"
#include "sim/kv_block_manager.hpp"
#include "sim/offload_tier.hpp"
#include "sim/secondary_tier.hpp"
#include "sim/simulator.hpp"
#include "sim/step_scheduler.hpp"
#include "sim/tier_cost_state.hpp"
#include "sim/transfer_jobs.hpp"

namespace kvb {

// What the engines of one fleet share: the event clock and the requests in flight, indexed by
// id. A request's slot is reused once it has retired (finished, its stores done), so memory
// follows the requests in flight, not the traffic (fleet_simulation.cpp).
struct FleetClock {
  EventQueue events;
  SimTime now{};
  std::deque<SimRequest> requests;  // a deque: references stay valid as requests arrive
};

// Told when a request has finished (the conversation's next turn can be sent) and when it has
// retired: finished and no store still reading its blocks; its slot is free after this event.
class FinishListener {
 public:
  virtual void on_finished(SimRequest& r) = 0;
  virtual void on_retired(SimRequest& r) = 0;

 protected:
  ~FinishListener() = default;
};

// What one engine did over a run: its counters, before the fleet sums them (fleet_simulation.cpp).
struct EngineMetrics {
  std::int64_t steps = 0;
  double busy_s = 0;  // seconds, as every figure the engine reports
  std::int64_t scheduled_tokens = 0, recomputed_tokens = 0, gpu_hit_tokens = 0, cpu_hit_tokens = 0;
  std::int64_t loads = 0, stores = 0;
  double h2d_bytes = 0, d2h_bytes = 0, h2d_busy_s = 0, d2h_busy_s = 0;
  std::int64_t gpu_evictions = 0, cpu_evictions = 0, cpu_peak_blocks = 0;
  std::int64_t gpu_blocks = 0;
  double occupancy_integral = 0, occupancy_peak = 0;  // used blocks x seconds; most used blocks
  OccupancyTrace occupancy_trace;
  std::array<double, kTierCostCount> tier_cost_s{};
  std::optional<SecondaryTierCounts> secondary;  // with a secondary tier
};

class ServingEngine final : private AdmissionActions {
 public:
  ServingEngine(const SimulationSetup& setup, const SimOptions& options, int replica, FleetClock& clock,
                FinishListener& listener);

  // The fleet's events for this engine; after each, the fleet calls try_start_step().
  void admit(std::int64_t id);
  void on_step_done();
  void on_load_done(std::int64_t job);
  void on_store_done(std::int64_t job);
  void on_timeout(std::int64_t id);
  void on_disk_write_done(std::int64_t job);  // secondary_copies.cpp
  void on_disk_read_done(std::int64_t job);
  void try_start_step();
  void start_clock();  // the fleet's first arrival: occupancy counts from here
  void reset_prefix_cache() { kv_.reset_prefix_cache(); }

  // What the replica publishes to a router: queue depth, GPU KV usage, and the leading blocks of
  // `r`'s prompt it holds on the GPU or in its CPU tier (vLLM's KV events say which blocks).
  std::int64_t waiting() const { return scheduler_.waiting(); }
  double kv_usage() const;
  // Fills state.gpu_prefix_blocks and cpu_prefix_blocks for `r`.
  void published_prefix(const SimRequest& r, ReplicaState& state) const;

  EngineMetrics metrics() const;
  std::int64_t gpu_blocks() const { return kv_.num_blocks(); }
  std::int64_t free_blocks() const { return kv_.num_free(); }

 private:
  // serving_engine.cpp
  void push_event(SimTime at, EventKind kind, std::int64_t id) { clock_.events.push(at, kind, id, replica_); }
  SimRequest& request(std::int64_t id) { return clock_.requests[static_cast<std::size_t>(id)]; }
  void finish(SimRequest& r);
  void abort(SimRequest& r);
  void retire_if_done(SimRequest& r);
  void start_load(SimRequest& r, const std::vector<std::int32_t>& gpu_hits, std::int64_t cpu_blocks) override;
  void offer_stores(SimRequest& r);
  void release_blocks(SimRequest& r);
  void free_after_finish(SimRequest& r);
  void reader_done(SimRequest& r);
  void end_holds(bool all);
  void audit() const;

  // step_costs.cpp
  double tier_step_cost(const StepWork& w, double step);
  double shared_link_seconds(double seconds) const;
  double copy_submission_seconds(std::int64_t blocks, double per_copy_s) const;
  void report_stores(SimRequest& r);
  void complete_load(std::int64_t job, bool from_step_output);

  // secondary_copies.cpp: the secondary tier's write-through and promotions
  void write_through(const std::vector<std::uint64_t>& hashes);
  void promote(TransferJob& job);
  void write_files(SimRequest& r, const std::vector<std::uint64_t>& hashes);  // side by side
  void read_files(TransferJob job);
  void load_to_gpu(std::int64_t job);
  std::int64_t promoted_fresh_tokens(const TransferJob& job, const SimRequest& r) const;

  // lmcache_copies.cpp
  void load_in_step(std::int64_t cpu_blocks) override;
  SimDuration store_in_step();
  bool step_waits_for_stores();

  const SimulationSetup& setup_;
  bool check_invariants_;
  int replica_;
  FleetClock& clock_;  // the fleet's events, time and requests
  FinishListener& listener_;
  // What the tier's loads and stores cross: the GPU's link, or a file tier's disk (sim/file_tier.hpp).
  LinkProfile tier_link_;
  KvBlockManager kv_;
  std::unique_ptr<OffloadTier> tier_;
  std::unique_ptr<SecondaryTier> secondary_;  // behind tier_ (sim/secondary_tier.hpp); null without one
  TransferJobs transfers_;
  TierCostState costs_;  // the CPU tier's mechanisms (step_costs.cpp)
  EngineCounters counters_;
  OccupancySampler occupancy_;
  EngineLoop loop_;
  StepScheduler scheduler_;  // queues, admission, preemption (step_scheduler.cpp)
};

}  // namespace kvb
