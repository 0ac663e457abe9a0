#include "sim/serving_engine.hpp"
#include "sim/tier_costs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "sim/engine_loop.hpp"

namespace kvb {

namespace {

std::unique_ptr<OffloadTier> make_tier(const SimulationSetup& setup) {
  if (!setup.offloading) return nullptr;
  const auto& server = setup.scenario.server;
  return std::make_unique<OffloadTier>(setup.cpu_blocks, server.eviction_policy, server.store_threshold);
}

}  // namespace

ServingEngine::ServingEngine(const SimulationSetup& setup, const SimOptions& options, int replica,
                             FleetClock& clock, FinishListener& listener)
    : setup_(setup),
      check_invariants_(options.check_invariants),
      replica_(replica),
      clock_(clock),
      listener_(listener),
      tier_link_(setup.file_tier ? file_tier_link(*setup.file_tier, setup.server.world_size(), setup.link)
                                 : setup.link),
      kv_(setup.gpu_blocks, setup.server.block_size, setup.scenario.server.enable_prefix_caching),
      tier_(make_tier(setup)),
      secondary_(tier_ && setup.secondary
                     ? std::make_unique<SecondaryTier>(*setup.secondary, setup.cpu_block_bytes)
                     : nullptr),
      scheduler_(SchedulerContext{setup, clock.requests, kv_, tier_.get(), costs_, counters_, *this,
                                  secondary_.get()},
                 setup.scenario.server.scheduler_reserve_full_isl.value_or(
                     reserve_full_prompt_by_default(setup.scenario.server.vllm_version))) {
  const auto& server = setup.scenario.server;
  loop_.async_scheduling = async_scheduling_by_default(server.vllm_version);
  // An empty tier (kv-offloading-size 0) is no connector: it costs nothing.
  if (tier_ && tier_->capacity() > 0) {
    costs_.active = active_tier_costs(server.tier_costs, server.vllm_version,
                                      server.kv_offloading_backend == OffloadingBackend::kLmcache);
    // A file is a hit once written (the file tier's lookup is a path check): no wait for the request;
    // a preemption cancels the connector's queued writes (storage_offload.cpp wait_job): no wait either.
    if (setup.file_tier)
      costs_.active = costs_.active.without(TierCost::kStoreVisibility).without(TierCost::kPreemptFlush);
  }
}

void ServingEngine::start_clock() { occupancy_.start(clock_.now); }

double ServingEngine::kv_usage() const {
  return static_cast<double>(kv_.num_used()) /
         static_cast<double>(std::max<std::int64_t>(1, kv_.num_blocks()));
}

void ServingEngine::published_prefix(const SimRequest& r, ReplicaState& state) const {
  const auto max_hit = (r.known_tokens() - 1) / setup_.server.block_size;
  const auto gpu = static_cast<std::int64_t>(kv_.find_prefix(r.block_hashes, max_hit).size());
  auto blocks = gpu;
  while (tier_ && blocks < max_hit && tier_->ready(r.block_hashes[static_cast<std::size_t>(blocks)]))
    ++blocks;
  state.gpu_prefix_blocks = gpu;
  state.cpu_prefix_blocks = blocks - gpu;
}

void ServingEngine::admit(std::int64_t id) {
  auto& r = request(id);
  if (r.timed_out) {  // the client gave up before the API server handed it on
    abort(r);
    return;
  }
  r.state = RequestState::kWaiting;
  r.first_step = loop_.next_schedulable_step(false);
  scheduler_.enqueue(id);
}

// The client gave up (workload client-timeout): vLLM aborts the request when its connection
// closes, wherever it is, frees its blocks once no store still reads them, and never answers it.
// A request still in the API server, loading, or in the running step is aborted when that ends
// (admit, complete_load, on_step_done): its id stays valid until then.
void ServingEngine::on_timeout(std::int64_t id) {
  auto& r = request(id);
  if (r.state == RequestState::kFinished || r.timed_out) return;
  r.timed_out = true;
  if (r.state == RequestState::kPending || r.state == RequestState::kLoading) return;
  if (scheduler_.in_step(id)) return;
  scheduler_.drop(id);
  abort(r);
}

void ServingEngine::abort(SimRequest& r) {
  r.state = RequestState::kFinished;
  r.finish_time = clock_.now;
  free_after_finish(r);
  if (tier_) report_stores(r);
  listener_.on_finished(r);
  retire_if_done(r);
}

void ServingEngine::on_step_done() {
  if (step_waits_for_stores()) return;
  loop_.busy = false;
  ++counters_.steps;
  end_holds(false);
  for (const auto job : costs_.load_polling.seen) complete_load(job, true);  // news from the step's output
  costs_.load_polling.seen.clear();
  bool any_finished = false;
  for (const auto& s : scheduler_.step()) {
    auto& r = request(s.request);
    if (r.timed_out) {  // its client left during this step
      abort(r);
      any_finished = true;
      continue;
    }
    counters_.note_progress(r, s.start, s.start + s.tokens, true, false);
    r.computed = s.start + s.tokens;
    kv_.cache_blocks(r, r.computed / setup_.server.block_size);
    if (tier_ && !costs_.on(TierCost::kLmcacheSync)) offer_stores(r);
    if (r.computed == r.known_tokens()) {
      ++r.generated;
      if (r.first_token_time == kNoTime) r.first_token_time = clock_.now;
      if (r.generated == r.output_tokens) {
        finish(r);
        any_finished = true;
      }
    }
  }
  scheduler_.end_step(any_finished);
  occupancy_.sample(clock_.now, kv_.num_used());
  if (check_invariants_) audit();
}

void ServingEngine::finish(SimRequest& r) {
  r.state = RequestState::kFinished;
  r.finish_time = clock_.now;
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
    costs_.finish_hold.holds.push_back({counters_.steps + (loop_.async_scheduling ? 2 : 1), r.id});
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
    reader_done(request(id));
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
  r.state = RequestState::kLoading;
  if (!secondary_) {
    tier_->pin_for_load(job.hashes);
    load_to_gpu(transfers_.add(std::move(job)));
    return;
  }
  if (secondary_->side_by_side() && !tier_->ready(job.hashes.front())) {
    read_files(std::move(job));  // MultiConnector: the file tier's connector loads it
    return;
  }
  if (secondary_->side_by_side()) {
    tier_->pin_for_load(job.hashes);
    load_to_gpu(transfers_.add(std::move(job)));
    return;
  }
  promote(job);  // the blocks only the secondary tier holds are read into the CPU tier first
  const bool from_disk = !job.disk.empty();
  const SimTime read_done = from_disk ? secondary_->start_read(clock_.now, job.disk) : SimTime{};
  const auto id = transfers_.add(std::move(job));
  if (from_disk) {
    push_event(read_done, EventKind::kDiskReadDone, id);
  } else {
    load_to_gpu(id);
  }
}

// The CPU -> GPU leg of a load: its blocks are in the CPU tier, pinned.
void ServingEngine::load_to_gpu(std::int64_t id) {
  const auto blocks = static_cast<std::int64_t>(transfers_[id].hashes.size());
  const double seconds = shared_link_seconds(tier_link_.h2d.seconds(blocks, setup_.block_bytes_per_rank) /
                                             setup_.predictor.calibration().load_efficiency);
  costs_.connector_cpu.submit_s += copy_submission_seconds(blocks, tier_link_.h2d.per_copy_s);
  const SimTime done = transfers_.h2d.submit(clock_.now, to_sim_duration(seconds, "a load"),
                                             static_cast<double>(blocks) * setup_.cpu_block_bytes);
  push_event(done, EventKind::kLoadDone, id);
}

void ServingEngine::on_load_done(std::int64_t id) {
  // The worker polls for finished loads after each forward pass (load-polling): one that ends
  // during a step is seen when that step ends.
  if (loop_.busy && costs_.on(TierCost::kLoadPolling)) {
    costs_.load_polling.seen.push_back(id);
  } else {
    complete_load(id, false);
  }
}

void ServingEngine::complete_load(std::int64_t id, bool from_step_output) {
  auto& job = transfers_[id];
  auto& r = request(job.request);
  if (!job.direct) tier_->unpin(job.hashes);
  const auto blocks = job.gpu_hit_blocks + static_cast<std::int64_t>(job.hashes.size());
  const auto promoted = secondary_ ? promoted_fresh_tokens(job, r) : 0;
  counters_.note_progress(r, job.gpu_hit_blocks * setup_.server.block_size, blocks * setup_.server.block_size,
                          false, true);
  if (promoted > 0) {  // the tokens that came from the secondary tier count there, not as CPU hits
    counters_.cpu_hit_tokens -= promoted;
    secondary_->add_hit_tokens(promoted);
  }
  r.computed = blocks * setup_.server.block_size;
  kv_.cache_blocks(r, blocks);
  r.state = RequestState::kWaiting;
  // The scheduler learns of a finished load from the step's output; under async scheduling the
  // next step was scheduled before that output came back (sim/engine_loop.hpp).
  const auto first_step = loop_.next_schedulable_step(from_step_output);
  r.first_step = first_step;
  // Requests that waited for this load (load-convoy) try again, behind it: it was at the head of
  // the queue when its load started.
  scheduler_.release_convoy(first_step);
  transfers_.done(id);
  if (r.timed_out) {
    abort(r);  // its client left while it loaded: the loaded blocks stay cached
  } else {
    scheduler_.requeue(r.id);
  }
}

// The next step, if the scheduler puts anything in it (sim/step_scheduler.hpp), runs now.
void ServingEngine::try_start_step() {
  if (loop_.busy) return;
  scheduler_.schedule(loop_.steps_started);
  if (scheduler_.step().empty()) {
    // The empty steps that report finish-holds free their blocks: schedule again.
    if (!costs_.finish_hold.holds.empty()) {
      end_holds(true);
      try_start_step();
      return;
    }
    costs_.fabric_sharing.step_share = 0;  // the engine idles: copies have the link to themselves
    return;
  }
  StepWork work;
  for (const auto& s : scheduler_.step()) work.add(s.start, s.tokens, setup_.predictor.sliding_window());
  loop_.busy = true;
  ++loop_.steps_started;
  double seconds = setup_.predictor.step_seconds(work);
  seconds += tier_step_cost(work, seconds);
  const SimDuration step = to_sim_duration(seconds, "an engine step");
  counters_.busy += step;
  push_event(clock_.now + step, EventKind::kStepDone, 0);
}

void ServingEngine::offer_stores(SimRequest& r) {
  // vLLM stores each block once it is full, and only those missing from the tier: the prompt's
  // before 0.18, decoded blocks too from then (decode-stores).
  const auto upto =
      (costs_.on(TierCost::kDecodeStores) ? r.computed : std::min(r.computed, r.prompt_tokens)) /
      setup_.server.block_size;
  if (upto <= r.stored_blocks) return;
  costs_.connector_cpu.blocks_touched += upto;  // the scheduler touches every block of a request that stores
  const std::vector<std::uint64_t> candidates(r.block_hashes.begin() + r.stored_blocks,
                                              r.block_hashes.begin() + upto);
  r.stored_blocks = upto;
  // A file tier drops writes queued past its bound (sim/file_tier.hpp): those blocks are never stored.
  if (setup_.file_tier && transfers_.d2h.free_at() - clock_.now > kFileWriteQueue) return;
  if (secondary_ && secondary_->side_by_side()) write_files(r, candidates);  // MultiConnector's second
  auto accepted = tier_->reserve(tier_->select_for_store(candidates));
  counters_.cpu_peak_blocks = std::max(counters_.cpu_peak_blocks, tier_->size());
  if (accepted.empty()) return;
  const auto n = static_cast<std::int64_t>(accepted.size());
  const double seconds = shared_link_seconds(tier_link_.d2h.seconds(n, setup_.block_bytes_per_rank));
  costs_.connector_cpu.submit_s += copy_submission_seconds(n, tier_link_.d2h.per_copy_s);
  const SimTime done = transfers_.d2h.submit(clock_.now, to_sim_duration(seconds, "a store"),
                                             static_cast<double>(n) * setup_.cpu_block_bytes);
  const auto id = transfers_.add(TransferJob{r.id, std::move(accepted), 0, r.preemptions});
  ++r.pending_stores;
  r.stored_any = true;
  r.stores_end = std::max(r.stores_end, done);
  push_event(done, EventKind::kStoreDone, id);
}

void ServingEngine::on_store_done(std::int64_t id) {
  auto& job = transfers_[id];
  auto& r = request(job.request);
  // A store of a request preempted since it was submitted was completed at the preemption
  // (preempt-flush): ready for others at once.
  const bool flushed = costs_.on(TierCost::kPreemptFlush) && job.preemptions != r.preemptions;
  if (costs_.on(TierCost::kStoreVisibility) && !flushed) {
    r.unreported_stores.insert(r.unreported_stores.end(), job.hashes.begin(), job.hashes.end());
  } else {
    tier_->store_done(job.hashes);
  }
  if (secondary_ && !secondary_->side_by_side()) write_through(job.hashes);
  transfers_.done(id);
  reader_done(r);
}

void ServingEngine::retire_if_done(SimRequest& r) {
  if (r.state != RequestState::kFinished || r.pending_stores > 0) return;
  scheduler_.forget(r.id);  // the id will name another request
  listener_.on_retired(r);
}

void ServingEngine::audit() const {
  std::vector<const SimRequest*> holders;
  for (const auto& r : clock_.requests) {
    if (r.replica == replica_ && !r.blocks.empty()) holders.push_back(&r);
  }
  auto problem = kv_.check(holders);
  if (problem.empty() && tier_) problem = tier_->check();
  if (problem.empty() && secondary_) problem = secondary_->check();
  if (!problem.empty())
    throw CheckFailed(
        fmt::format("simulator invariant violated at t={:.6f} s: {}", to_seconds(clock_.now), problem));
}

EngineMetrics ServingEngine::metrics() const {
  EngineMetrics m;
  m.steps = counters_.steps;
  m.busy_s = to_seconds(counters_.busy);
  m.scheduled_tokens = counters_.scheduled_tokens;
  m.recomputed_tokens = counters_.recomputed_tokens;
  m.gpu_hit_tokens = counters_.gpu_hit_tokens;
  m.cpu_hit_tokens = counters_.cpu_hit_tokens;
  m.loads = transfers_.h2d.transfers();
  m.stores = transfers_.d2h.transfers();
  m.h2d_bytes = transfers_.h2d.bytes();
  m.d2h_bytes = transfers_.d2h.bytes();
  m.h2d_busy_s = transfers_.h2d.busy_seconds();
  m.d2h_busy_s = transfers_.d2h.busy_seconds();
  m.gpu_evictions = kv_.evictions();
  m.cpu_evictions = tier_ ? tier_->evictions() : 0;
  m.cpu_peak_blocks = counters_.cpu_peak_blocks;
  m.gpu_blocks = kv_.num_blocks();
  m.occupancy_integral = occupancy_.integral();
  m.occupancy_peak = occupancy_.peak();
  m.occupancy_trace = occupancy_.trace();
  m.tier_cost_s = counters_.tier_cost_s;
  if (secondary_) m.secondary = secondary_->counts();
  return m;
}

}  // namespace kvb
