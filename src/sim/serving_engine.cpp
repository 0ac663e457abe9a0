#include "sim/serving_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "sim/engine_loop.hpp"

namespace kvb {

ServingEngine::ServingEngine(const SimulationSetup& setup, const SimOptions& options, int replica,
                             FleetClock& clock, FinishListener& listener)
    : setup_(setup),
      options_(options),
      block_size_(setup.block_size),
      replica_(replica),
      events_(clock.events),
      now_(clock.now),
      requests_(clock.requests),
      listener_(listener),
      kv_(setup.gpu_blocks, setup.block_size, setup.scenario.server.enable_prefix_caching),
      async_scheduling_(async_scheduling_by_default(setup.scenario.server.vllm_version)),
      reserve_full_prompt_(setup.scenario.server.scheduler_reserve_full_isl.value_or(
          reserve_full_prompt_by_default(setup.scenario.server.vllm_version))) {
  if (setup.offloading) {
    tier_ = std::make_unique<OffloadTier>(setup.cpu_blocks, setup.scenario.server.eviction_policy,
                                          setup.scenario.server.store_threshold);
  }
  // An empty tier (kv-offloading-size 0) is no connector: it costs nothing.
  const auto& server = setup.scenario.server;
  if (tier_ && tier_->capacity() > 0) {
    costs_.active = active_tier_costs(server.tier_costs, server.vllm_version,
                                      server.kv_offloading_backend == OffloadingBackend::kLmcache);
  }
}

void ServingEngine::start_clock() { occupancy_.start(now_); }

double ServingEngine::kv_usage() const {
  return static_cast<double>(kv_.num_used()) /
         static_cast<double>(std::max<std::int64_t>(1, kv_.num_blocks()));
}

void ServingEngine::published_prefix(const SimRequest& r, ReplicaState& state) const {
  const auto max_hit = (r.known_tokens() - 1) / block_size_;
  const auto gpu = static_cast<std::int64_t>(kv_.find_prefix(r.block_hashes, max_hit).size());
  auto blocks = gpu;
  while (tier_ && blocks < max_hit && tier_->ready(r.block_hashes[static_cast<std::size_t>(blocks)]))
    ++blocks;
  state.gpu_prefix_blocks = gpu;
  state.cpu_prefix_blocks = blocks - gpu;
}

// The first step that can schedule a request the scheduler learns of now. Under async scheduling
// the step after the running one (or after the one that just ended, whose output is being read:
// `from_step_output`) was scheduled when that one started.
std::int64_t ServingEngine::next_schedulable_step(bool from_step_output) const {
  if (!async_scheduling_) return steps_started_;
  return engine_busy_ || from_step_output ? steps_started_ + 1 : steps_started_;
}

void ServingEngine::admit(std::int64_t id) {
  auto& r = requests_[static_cast<std::size_t>(id)];
  if (r.timed_out) {  // the client gave up before the API server handed it on
    abort(r);
    return;
  }
  r.state = RequestState::kWaiting;
  r.first_step = next_schedulable_step(false);
  waiting_.push_back(id);
}

// The client gave up (workload client-timeout): vLLM aborts the request when its connection
// closes, wherever it is, frees its blocks once no store still reads them, and never answers it.
// A request still in the API server, loading, or in the running step is aborted when that ends
// (admit, complete_load, on_step_done): its id stays valid until then.
void ServingEngine::on_timeout(std::int64_t id) {
  auto& r = requests_[static_cast<std::size_t>(id)];
  if (r.state == RequestState::kFinished || r.timed_out) return;
  r.timed_out = true;
  if (r.state == RequestState::kPending || r.state == RequestState::kLoading) return;
  const auto in_step =
      std::any_of(step_.begin(), step_.end(), [&](const Scheduled& s) { return s.request == id; });
  if (in_step) return;
  const auto drop = [id](auto& queue) {
    queue.erase(std::remove(queue.begin(), queue.end(), id), queue.end());
  };
  drop(waiting_);
  drop(costs_.load_convoy.waiting);
  drop(running_);
  abort(r);
}

void ServingEngine::abort(SimRequest& r) {
  r.state = RequestState::kFinished;
  r.finish_time = now_;
  free_after_finish(r);
  if (tier_) report_stores(r);
  listener_.on_finished(r);
  retire_if_done(r);
}

void ServingEngine::on_step_done() {
  if (step_waits_for_stores()) return;
  engine_busy_ = false;
  ++counters_.steps;
  end_holds(false);
  for (const auto job : costs_.load_polling.seen) complete_load(job, true);  // news from the step's output
  costs_.load_polling.seen.clear();
  bool any_finished = false;
  for (const auto& s : step_) {
    auto& r = requests_[static_cast<std::size_t>(s.request)];
    if (r.timed_out) {  // its client left during this step
      abort(r);
      any_finished = true;
      continue;
    }
    counters_.note_progress(r, s.start, s.start + s.tokens, true, false);
    r.computed = s.start + s.tokens;
    kv_.cache_blocks(r, r.computed / block_size_);
    if (tier_ && !costs_.on(TierCost::kLmcacheSync)) offer_stores(r);
    if (r.computed == r.known_tokens()) {
      ++r.generated;
      if (r.first_token_time < 0) r.first_token_time = now_;
      if (r.generated == r.output_tokens) {
        finish(r);
        any_finished = true;
      }
    }
  }
  step_.clear();
  if (any_finished) {
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [this](std::int64_t id) {
                                    return requests_[static_cast<std::size_t>(id)].state ==
                                           RequestState::kFinished;
                                  }),
                   running_.end());
  }
  occupancy_.sample(now_, kv_.num_used());
  if (options_.check_invariants) audit();
}

void ServingEngine::finish(SimRequest& r) {
  r.state = RequestState::kFinished;
  r.finish_time = now_;
  free_after_finish(r);
  if (tier_) report_stores(r);
  listener_.on_finished(r);
  retire_if_done(r);
}

// vLLM frees a finished request's blocks once no store reads them. Up to 0.20 the connector keeps
// them longer for any request that stored (OffloadingConnectorScheduler.request_finished returns
// True while its id is in _reqs_being_stored, which only the worker's finished_sending clears): the
// request's id reaches the worker with the next step scheduled, whose get_finished reports it in that
// step's output. Under async scheduling that is the second step after the one it finished in, the
// first otherwise (finish-hold; #22595 to #39186).
void ServingEngine::free_after_finish(SimRequest& r) {
  if (r.stored_any && costs_.on(TierCost::kFinishHold)) {
    ++r.pending_stores;  // the hold counts as one more reader of its blocks
    costs_.finish_hold.holds.push_back({counters_.steps + (async_scheduling_ ? 2 : 1), r.id});
  }
  if (r.pending_stores > 0) {
    r.free_when_stored = true;  // vLLM delays freeing until the stores have read the blocks
  } else {
    release_blocks(r);
  }
}

// A store job or a finish-hold of `r` has ended.
void ServingEngine::reader_done(SimRequest& r) {
  if (--r.pending_stores == 0 && r.free_when_stored) {
    r.free_when_stored = false;
    release_blocks(r);
  }
  report_stores(r);
  retire_if_done(r);
}

// The holds due by the step that just ended, or all of them when the engine idles (vLLM's engine
// keeps stepping, with nothing to compute, while the connector has transfers to report).
// Holds are queued in the order they end (one engine's offset is fixed).
void ServingEngine::end_holds(bool all) {
  auto& holds = costs_.finish_hold.holds;
  while (!holds.empty() && (all || holds.front().until_step <= counters_.steps)) {
    const auto id = holds.front().request;
    holds.pop_front();
    reader_done(requests_[static_cast<std::size_t>(id)]);
  }
}

void ServingEngine::release_blocks(SimRequest& r) {
  kv_.release(r);
  r.block_hashes.clear();
  r.block_hashes.shrink_to_fit();
}

void ServingEngine::start_load(SimRequest& r, const std::vector<std::int32_t>& gpu_hits,
                               std::int64_t cpu_blocks) {
  const auto g = static_cast<std::int64_t>(gpu_hits.size());
  TransferJob job;
  job.request = r.id;
  job.gpu_hit_blocks = g;
  job.hashes.assign(r.block_hashes.begin() + g, r.block_hashes.begin() + g + cpu_blocks);
  tier_->pin_for_load(job.hashes);
  const double seconds =
      shared_link_seconds(setup_.link.h2d.seconds(cpu_blocks, setup_.block_bytes_per_rank) /
                          setup_.predictor.calibration().load_efficiency);
  costs_.connector_cpu.submit_s += copy_submission_seconds(cpu_blocks, setup_.link.h2d.per_copy_s);
  const double done = h2d_.submit(now_, seconds, static_cast<double>(cpu_blocks) * setup_.cpu_block_bytes);
  push_event(done, EventKind::kLoadDone, new_job(std::move(job)));
  r.state = RequestState::kLoading;
}

void ServingEngine::on_load_done(std::int64_t id) {
  // The worker polls for finished loads after each forward pass (load-polling): one that ends
  // during a step is seen when that step ends.
  if (engine_busy_ && costs_.on(TierCost::kLoadPolling)) {
    costs_.load_polling.seen.push_back(id);
  } else {
    complete_load(id, false);
  }
}

void ServingEngine::complete_load(std::int64_t id, bool from_step_output) {
  auto& job = jobs_[static_cast<std::size_t>(id)];
  auto& r = requests_[static_cast<std::size_t>(job.request)];
  tier_->unpin(job.hashes);
  const auto blocks = job.gpu_hit_blocks + static_cast<std::int64_t>(job.hashes.size());
  counters_.note_progress(r, job.gpu_hit_blocks * block_size_, blocks * block_size_, false, true);
  r.computed = blocks * block_size_;
  kv_.cache_blocks(r, blocks);
  r.state = RequestState::kWaiting;
  // The scheduler learns of a finished load from the step's output; under async scheduling the
  // next step was scheduled before that output came back (sim/engine_loop.hpp).
  const auto first_step = next_schedulable_step(from_step_output);
  r.first_step = first_step;
  // Requests that waited for this load (load-convoy) try again, behind it: it was at the head of
  // the queue when its load started.
  while (!costs_.load_convoy.waiting.empty()) {
    requests_[static_cast<std::size_t>(costs_.load_convoy.waiting.back())].first_step = first_step;
    waiting_.push_front(costs_.load_convoy.waiting.back());
    costs_.load_convoy.waiting.pop_back();
  }
  job.hashes = {};
  free_jobs_.push_back(id);
  if (r.timed_out) {
    abort(r);  // its client left while it loaded: the loaded blocks stay cached
  } else {
    waiting_.push_front(r.id);
  }
}

void ServingEngine::offer_stores(SimRequest& r) {
  // vLLM stores each block once it is full, and only those missing from the tier: the prompt's
  // before 0.18, decoded blocks too from then (decode-stores).
  const auto upto =
      (costs_.on(TierCost::kDecodeStores) ? r.computed : std::min(r.computed, r.prompt_tokens)) / block_size_;
  if (upto <= r.stored_blocks) return;
  costs_.connector_cpu.blocks_touched += upto;  // the scheduler touches every block of a request that stores
  const std::vector<std::uint64_t> candidates(r.block_hashes.begin() + r.stored_blocks,
                                              r.block_hashes.begin() + upto);
  r.stored_blocks = upto;
  auto accepted = tier_->reserve(tier_->select_for_store(candidates));
  counters_.cpu_peak_blocks = std::max(counters_.cpu_peak_blocks, tier_->size());
  if (accepted.empty()) return;
  const auto n = static_cast<std::int64_t>(accepted.size());
  const double seconds = shared_link_seconds(setup_.link.d2h.seconds(n, setup_.block_bytes_per_rank));
  costs_.connector_cpu.submit_s += copy_submission_seconds(n, setup_.link.d2h.per_copy_s);
  const double done = d2h_.submit(now_, seconds, static_cast<double>(n) * setup_.cpu_block_bytes);
  const auto id = new_job(TransferJob{r.id, std::move(accepted), 0, r.preemptions});
  ++r.pending_stores;
  r.stored_any = true;
  r.stores_end = std::max(r.stores_end, done);
  push_event(done, EventKind::kStoreDone, id);
}

void ServingEngine::on_store_done(std::int64_t id) {
  auto& job = jobs_[static_cast<std::size_t>(id)];
  auto& r = requests_[static_cast<std::size_t>(job.request)];
  // A store of a request preempted since it was submitted was completed at the preemption
  // (preempt-flush): ready for others at once.
  const bool flushed = costs_.on(TierCost::kPreemptFlush) && job.preemptions != r.preemptions;
  if (costs_.on(TierCost::kStoreVisibility) && !flushed) {
    r.unreported_stores.insert(r.unreported_stores.end(), job.hashes.begin(), job.hashes.end());
  } else {
    tier_->store_done(job.hashes);
  }
  job.hashes = {};
  free_jobs_.push_back(id);
  reader_done(r);
}

std::int64_t ServingEngine::new_job(TransferJob job) {
  if (free_jobs_.empty()) {
    jobs_.push_back(std::move(job));
    return static_cast<std::int64_t>(jobs_.size()) - 1;
  }
  const auto id = free_jobs_.back();
  free_jobs_.pop_back();
  jobs_[static_cast<std::size_t>(id)] = std::move(job);
  return id;
}

void ServingEngine::retire_if_done(SimRequest& r) {
  if (r.state != RequestState::kFinished || r.pending_stores > 0) return;
  if (lookup_.request == r.id) lookup_.request = -1;  // the id will name another request
  listener_.on_retired(r);
}

void ServingEngine::audit() const {
  std::vector<const SimRequest*> holders;
  for (const auto& r : requests_) {
    if (r.replica == replica_ && !r.blocks.empty()) holders.push_back(&r);
  }
  auto problem = kv_.check(holders);
  if (problem.empty() && tier_) problem = tier_->check();
  if (!problem.empty())
    throw CheckFailed(fmt::format("simulator invariant violated at t={:.6f} s: {}", now_, problem));
}

EngineMetrics ServingEngine::metrics() const {
  EngineMetrics m;
  m.steps = counters_.steps;
  m.busy_s = counters_.busy_s;
  m.scheduled_tokens = counters_.scheduled_tokens;
  m.recomputed_tokens = counters_.recomputed_tokens;
  m.gpu_hit_tokens = counters_.gpu_hit_tokens;
  m.cpu_hit_tokens = counters_.cpu_hit_tokens;
  m.loads = h2d_.transfers();
  m.stores = d2h_.transfers();
  m.h2d_bytes = h2d_.bytes();
  m.d2h_bytes = d2h_.bytes();
  m.h2d_busy_s = h2d_.busy_seconds();
  m.d2h_busy_s = d2h_.busy_seconds();
  m.gpu_evictions = kv_.evictions();
  m.cpu_evictions = tier_ ? tier_->evictions() : 0;
  m.cpu_peak_blocks = counters_.cpu_peak_blocks;
  m.gpu_blocks = kv_.num_blocks();
  m.occupancy_integral = occupancy_.integral();
  m.occupancy_peak = occupancy_.peak();
  m.occupancy_trace = occupancy_.trace();
  m.tier_cost_s = counters_.tier_cost_s;
  return m;
}

}  // namespace kvb
