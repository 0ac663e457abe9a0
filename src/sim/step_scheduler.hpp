#pragma once
// What one engine step computes, following vLLM v1's scheduler (step_scheduler.cpp): the waiting
// and running queues, admission (prefix lookup, the full-prompt gate, loads from the CPU tier) and
// preemption. The engine (sim/serving_engine.hpp) runs the steps, the transfers and the clock.
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/engine_counters.hpp"
#include "sim/kv_block_manager.hpp"
#include "sim/offload_tier.hpp"
#include "sim/request.hpp"
#include "sim/secondary_tier.hpp"
#include "sim/tier_cost_state.hpp"

namespace kvb {

struct SimulationSetup;

// A request's share of the step: tokens [start, start + tokens).
struct Scheduled {
  std::int64_t request = 0;
  std::int64_t start = 0;  // first token position processed
  std::int64_t tokens = 0;
};

// What admission asks the engine to do: the copies it owns.
class AdmissionActions {
 public:
  // r's `cpu_blocks` after its GPU hits load asynchronously; r waits, the batch does not.
  virtual void start_load(SimRequest& r, const std::vector<std::int32_t>& gpu_hits,
                          std::int64_t cpu_blocks) = 0;
  // LMCache retrieves `cpu_blocks` into the step being scheduled (lmcache-sync).
  virtual void load_in_step(std::int64_t cpu_blocks) = 0;

 protected:
  ~AdmissionActions() = default;
};

// Where the scheduler reads and writes the engine's state: the requests, the GPU pool, the CPU tier
// (null without one), the tier's mechanisms, the counters and the secondary tier (null without one).
struct SchedulerContext {
  const SimulationSetup& setup;
  std::deque<SimRequest>& requests;
  KvBlockManager& kv;
  OffloadTier* tier;
  TierCostState& costs;
  EngineCounters& counters;
  AdmissionActions& actions;
  const SecondaryTier* secondary = nullptr;
};

class StepScheduler {
 public:
  StepScheduler(SchedulerContext context, bool reserve_full_prompt)
      : c_(context), reserve_full_prompt_(reserve_full_prompt) {}

  // The next step's requests into step(); `steps_started`: steps the engine has started (a request
  // whose first_step is later was learnt of after this schedule call: async scheduling).
  void schedule(std::int64_t steps_started);
  const std::vector<Scheduled>& step() const { return step_; }
  bool in_step(std::int64_t id) const;
  // The step ended: its entries go, and so do the finished requests among the running.
  void end_step(bool any_finished);

  void enqueue(std::int64_t id) { waiting_.push_back(id); }   // a new request
  void requeue(std::int64_t id) { waiting_.push_front(id); }  // back at the head (a load ended)
  // The requests that waited on a load (load-convoy) back at the head, to start from `first_step`.
  void release_convoy(std::int64_t first_step);
  void drop(std::int64_t id);    // out of every queue (its client left)
  void forget(std::int64_t id);  // retired: the id will name another request
  std::int64_t waiting() const { return static_cast<std::int64_t>(waiting_.size()); }

 private:
  SimRequest& request(std::int64_t id) { return c_.requests[static_cast<std::size_t>(id)]; }
  bool schedule_running(std::int64_t& budget);
  // `any_arrival`: also requests that arrived after the step's schedule call (async scheduling).
  void schedule_waiting(std::int64_t& budget, std::int64_t steps_started, bool any_arrival);
  bool admit_head(SimRequest& r, std::int64_t& budget);
  bool admit_from_cpu(SimRequest& r, const std::vector<std::int32_t>& hits, std::int64_t cpu);
  void add_to_step(SimRequest& r, std::int64_t start, std::int64_t tokens, std::int64_t& budget);
  void preempt(SimRequest& r);
  bool unblock_waiting(std::int64_t head);
  // The full-prompt admission gate (vLLM >= 0.19): false when the free queue cannot hold all of
  // r's prompt (less its prefix hits), whatever this step's chunk would need.
  bool fits_whole_prompt(const SimRequest& r, const std::vector<std::int32_t>& hits) const;
  // Whether blocks [first, first + count) of r's prefix are being loaded for another request.
  bool waits_for_other_load(const SimRequest& r, std::int64_t first, std::int64_t count) const;

  // The head of the waiting queue is looked up again every step while it cannot start; the
  // answer only changes when the GPU prefix cache or the CPU tier does.
  struct PrefixLookup {
    std::int64_t request = -1;
    std::int64_t known_tokens = -1;
    std::uint64_t kv_version = 0;
    std::uint64_t tier_version = 0;
    std::vector<std::int32_t> gpu_hits;
    std::int64_t cpu_blocks = 0;  // ready in the CPU tier, or with a secondary tier in either
  };
  const PrefixLookup& lookup_prefix(const SimRequest& r);

  SchedulerContext c_;
  bool reserve_full_prompt_;  // the full-prompt admission gate (sim/engine_loop.hpp)
  std::deque<std::int64_t> waiting_;
  std::vector<std::int64_t> running_;
  std::vector<Scheduled> step_;
  PrefixLookup lookup_;
};

}  // namespace kvb
