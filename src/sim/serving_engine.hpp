#pragma once
// The simulator's state and event handlers. serving_engine.cpp runs the event loop, sessions,
// transfers and metrics; step_scheduler.cpp decides what each engine step computes; step_costs.cpp
// what an enabled CPU tier adds to steps and copies (sim/tier_costs.hpp).
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/kv_block_manager.hpp"
#include "sim/link_queue.hpp"
#include "sim/offload_tier.hpp"
#include "sim/simulator.hpp"
#include "sim/workload_generator.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

class ServingEngine {
 public:
  ServingEngine(const SimulationSetup& setup, const SimOptions& options);
  SimResult run();

 private:
  struct Scheduled {
    std::int64_t request = 0;
    std::int64_t start = 0;  // first token position processed
    std::int64_t tokens = 0;
  };
  struct TransferJob {
    std::int64_t request = 0;
    std::vector<std::uint64_t> hashes;
    std::int64_t gpu_hit_blocks = 0;  // loads: blocks that were already on the GPU
  };

  // serving_engine.cpp
  void start_session(double at);
  void admit_next_trace_request();
  void on_arrival(std::int64_t id);
  void admit(std::int64_t id);
  void on_step_done();
  void on_load_done(std::int64_t job);
  void on_store_done(std::int64_t job);
  void finish(SimRequest& r);
  void start_load(SimRequest& r, const std::vector<std::int32_t>& gpu_hits, std::int64_t cpu_blocks);
  void offer_stores(SimRequest& r);
  void release_blocks(SimRequest& r);
  void note_progress(SimRequest& r, std::int64_t from, std::int64_t to, bool computed, bool from_cpu);
  void sample_occupancy();
  void audit() const;
  SimResult summarize() const;

  // step_costs.cpp
  bool tier_cost_active(TierCost c) const;
  double tier_step_cost(const StepWork& w, double step);
  double shared_link_seconds(double seconds) const;
  double copy_submission_seconds(std::int64_t blocks, double per_copy_s) const;
  void report_stores(SimRequest& r);
  void complete_load(std::int64_t job);

  // step_scheduler.cpp
  void try_start_step();
  bool schedule_running(std::int64_t& budget);
  void schedule_waiting(std::int64_t& budget);
  void preempt(SimRequest& r);
  bool unblock_waiting(std::int64_t head);
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
    std::int64_t cpu_blocks = 0;
  };
  const PrefixLookup& lookup_prefix(const SimRequest& r);
  PrefixLookup lookup_;

  const SimulationSetup& setup_;
  SimOptions options_;
  int block_size_;
  WorkloadGenerator generator_;
  std::unique_ptr<TraceReader> trace_;  // --trace: requests stream from the file, one read ahead
  std::int64_t rejected_ = 0;           // trace requests longer than max-model-len (vLLM answers 400)
  KvBlockManager kv_;
  std::unique_ptr<OffloadTier> tier_;
  Link h2d_, d2h_;
  EventQueue events_;
  double now_ = 0;

  std::vector<Session> sessions_;
  std::deque<SimRequest> requests_;  // a deque: references stay valid as requests arrive
  std::deque<std::int64_t> waiting_;
  std::vector<std::int64_t> running_;
  std::vector<Scheduled> step_;
  bool engine_busy_ = false;
  double engine_busy_seconds_ = 0;  // sum of step times: the engine's work
  std::vector<TransferJob> jobs_;
  // What the tier's costs need between steps (step_costs.cpp).
  double submit_cpu_s_ = 0;               // copy submissions since the last step started (connector-cpu)
  std::int64_t blocks_touched_ = 0;       // blocks of storing requests touched since then
  double step_fabric_share_ = 0;          // share of the running step its all-reduces use the links
  std::vector<std::int64_t> loads_seen_;  // loads done during the running step (load-polling)
  std::deque<std::int64_t> convoy_;       // requests waiting on another's load (load-convoy)
  std::array<double, kTierCostCount> tier_cost_s_{};

  // metrics
  std::int64_t steps_ = 0;
  std::int64_t scheduled_tokens_ = 0;
  std::int64_t recomputed_tokens_ = 0;
  std::int64_t gpu_hit_tokens_ = 0;
  std::int64_t cpu_hit_tokens_ = 0;
  std::int64_t preemptions_ = 0;
  std::int64_t cpu_peak_ = 0;
  double first_arrival_ = -1;
  double occupancy_integral_ = 0;
  double occupancy_peak_ = 0;
  double last_sample_time_ = 0;
  std::int64_t last_used_blocks_ = 0;
  std::vector<std::pair<double, std::int64_t>> occupancy_trace_;  // (time, used blocks) from then on
};

}  // namespace kvb
