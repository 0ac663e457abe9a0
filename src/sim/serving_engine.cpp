#include "sim/serving_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/percentile.hpp"
#include "sim/trace_traffic.hpp"

namespace kvb {
namespace {

LatencySummary summarize_latency(std::vector<double> v) {
  LatencySummary s;
  s.count = static_cast<std::int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) { return percentile_sorted(v, q); };
  s.min = v.front();
  s.max = v.back();
  s.p50 = at(0.50);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

}  // namespace

ServingEngine::ServingEngine(const SimulationSetup& setup, const SimOptions& options)
    : setup_(setup),
      options_(options),
      block_size_(setup.block_size),
      generator_(setup.scenario.workload, setup.scenario.seed, setup.block_size, setup.max_model_len,
                 setup.scenario.origin),
      kv_(setup.gpu_blocks, setup.block_size, setup.scenario.server.enable_prefix_caching) {
  if (setup.offloading) {
    tier_ = std::make_unique<OffloadTier>(setup.cpu_blocks, setup.scenario.server.eviction_policy,
                                          setup.scenario.server.store_threshold);
  }
  if (setup.scenario.trace)
    trace_ = std::make_unique<TraceReader>(setup.scenario.trace->path, setup.scenario.trace->options);
}

SimResult ServingEngine::run() {
  const auto& arrival = setup_.scenario.workload.arrival;
  if (trace_) {
    admit_next_trace_request();
  } else if (arrival.process == ArrivalProcess::kClosed) {
    for (int u = 0; u < arrival.users && generator_.budget_left(); ++u) start_session(0.0);
  } else if (const auto t = generator_.next_session_start()) {
    start_session(*t);
  }
  while (!events_.empty()) {
    throw_if_interrupted();  // a cut simulation is no result: the sweep keeps the points before it
    const Event e = events_.pop();
    now_ = e.time;
    switch (e.kind) {
      case EventKind::kArrival:
        on_arrival(e.id);
        break;
      case EventKind::kAdmit:
        admit(e.id);
        break;
      case EventKind::kStepDone:
        on_step_done();
        break;
      case EventKind::kLoadDone:
        on_load_done(e.id);
        break;
      case EventKind::kStoreDone:
        on_store_done(e.id);
        break;
    }
    try_start_step();
  }
  return summarize();
}

void ServingEngine::start_session(double at) {
  Session s = generator_.start_session();
  if (s.turns == 0) return;
  s.id = static_cast<std::int64_t>(sessions_.size());
  sessions_.push_back(std::move(s));
  const auto id = static_cast<std::int64_t>(requests_.size());
  requests_.push_back(generator_.make_request(sessions_.back(), 0, at, id));
  events_.push(at, EventKind::kArrival, id);
}

// The trace's next request that vLLM would accept, pushed as an arrival; a prompt and reply
// longer than max-model-len is refused as vLLM's API server refuses it, and counted.
void ServingEngine::admit_next_trace_request() {
  TraceRequest t;
  while (trace_->next(t)) {
    if (t.prompt_tokens < 1 ||
        t.prompt_tokens + std::max<std::int64_t>(1, t.output_tokens) > setup_.max_model_len) {
      ++rejected_;
      continue;
    }
    const auto id = static_cast<std::int64_t>(requests_.size());
    requests_.push_back(simulated_request(t, id, setup_.scenario.trace->options.block_tokens, block_size_));
    const double at = std::max(t.arrival_s, now_);
    requests_.back().arrival = at;
    events_.push(at, EventKind::kArrival, id);
    return;
  }
}

void ServingEngine::on_arrival(std::int64_t id) {
  auto& r = requests_[static_cast<std::size_t>(id)];
  if (first_arrival_ < 0) {
    first_arrival_ = now_;
    last_sample_time_ = now_;
  }
  if (trace_) {
    admit_next_trace_request();  // streamed: one request read ahead, never the whole file
  } else if (r.turn == 0 && setup_.scenario.workload.arrival.process != ArrivalProcess::kClosed) {
    // Open loop: the next session is drawn when this one's first request arrives.
    if (const auto t = generator_.next_session_start()) start_session(std::max(*t, now_));
  }
  if (!trace_ && setup_.scenario.workload.reset_prefix_cache) kv_.reset_prefix_cache();
  // The API server's share (tokenisation, scheduling, streaming): the request waits it out
  // before the scheduler sees it; its latencies count from the arrival.
  const double overhead = setup_.predictor.calibration().request_overhead_s;
  if (overhead > 0) {
    events_.push(now_ + overhead, EventKind::kAdmit, id);
  } else {
    admit(id);
  }
}

void ServingEngine::admit(std::int64_t id) {
  auto& r = requests_[static_cast<std::size_t>(id)];
  r.state = RequestState::kWaiting;
  waiting_.push_back(id);
}

void ServingEngine::on_step_done() {
  engine_busy_ = false;
  ++steps_;
  for (const auto job : loads_seen_) complete_load(job);
  loads_seen_.clear();
  bool any_finished = false;
  for (const auto& s : step_) {
    auto& r = requests_[static_cast<std::size_t>(s.request)];
    note_progress(r, s.start, s.start + s.tokens, true, false);
    r.computed = s.start + s.tokens;
    kv_.cache_blocks(r, r.computed / block_size_);
    if (tier_) offer_stores(r);
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
  sample_occupancy();
  if (options_.check_invariants) audit();
}

void ServingEngine::finish(SimRequest& r) {
  r.state = RequestState::kFinished;
  r.finish_time = now_;
  if (r.pending_stores > 0) {
    r.free_when_stored = true;  // vLLM delays freeing until the stores have read the blocks
  } else {
    release_blocks(r);
  }
  if (tier_) report_stores(r);
  if (r.session < 0) return;  // a trace request: the trace schedules what comes next
  const auto& s = sessions_[static_cast<std::size_t>(r.session)];
  const int next = r.turn + 1;
  if (next < s.turns) {
    const double at = now_ + s.think_seconds[static_cast<std::size_t>(next)];
    const auto id = static_cast<std::int64_t>(requests_.size());
    requests_.push_back(generator_.make_request(s, next, at, id));
    events_.push(at, EventKind::kArrival, id);
  } else if (setup_.scenario.workload.arrival.process == ArrivalProcess::kClosed &&
             generator_.budget_left()) {
    start_session(now_);
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
  submit_cpu_s_ += copy_submission_seconds(cpu_blocks, setup_.link.h2d.per_copy_s);
  const double done = h2d_.submit(now_, seconds, static_cast<double>(cpu_blocks) * setup_.cpu_block_bytes);
  const auto id = static_cast<std::int64_t>(jobs_.size());
  jobs_.push_back(std::move(job));
  events_.push(done, EventKind::kLoadDone, id);
  r.state = RequestState::kLoading;
}

void ServingEngine::on_load_done(std::int64_t id) {
  // The worker polls for finished loads after each forward pass (load-polling): one that ends
  // during a step is seen when that step ends.
  if (engine_busy_ && tier_cost_active(TierCost::kLoadPolling)) {
    loads_seen_.push_back(id);
  } else {
    complete_load(id);
  }
}

void ServingEngine::complete_load(std::int64_t id) {
  auto& job = jobs_[static_cast<std::size_t>(id)];
  auto& r = requests_[static_cast<std::size_t>(job.request)];
  tier_->unpin(job.hashes);
  const auto blocks = job.gpu_hit_blocks + static_cast<std::int64_t>(job.hashes.size());
  note_progress(r, job.gpu_hit_blocks * block_size_, blocks * block_size_, false, true);
  r.computed = blocks * block_size_;
  kv_.cache_blocks(r, blocks);
  r.state = RequestState::kWaiting;
  // Requests that waited for this load (load-convoy) try again, behind it: it was at the head of
  // the queue when its load started.
  while (!convoy_.empty()) {
    waiting_.push_front(convoy_.back());
    convoy_.pop_back();
  }
  waiting_.push_front(r.id);
  job.hashes = {};
}

void ServingEngine::offer_stores(SimRequest& r) {
  // vLLM stores each block once it is full, and only those missing from the tier: the prompt's
  // before 0.18, decoded blocks too from then (decode-stores).
  const auto upto =
      (tier_cost_active(TierCost::kDecodeStores) ? r.computed : std::min(r.computed, r.prompt_tokens)) /
      block_size_;
  if (upto <= r.stored_blocks) return;
  blocks_touched_ += upto;  // the scheduler touches every block of a request that stores
  const std::vector<std::uint64_t> candidates(r.block_hashes.begin() + r.stored_blocks,
                                              r.block_hashes.begin() + upto);
  r.stored_blocks = upto;
  auto accepted = tier_->reserve(tier_->select_for_store(candidates));
  cpu_peak_ = std::max(cpu_peak_, tier_->size());
  if (accepted.empty()) return;
  const auto n = static_cast<std::int64_t>(accepted.size());
  const double seconds = shared_link_seconds(setup_.link.d2h.seconds(n, setup_.block_bytes_per_rank));
  submit_cpu_s_ += copy_submission_seconds(n, setup_.link.d2h.per_copy_s);
  const double done = d2h_.submit(now_, seconds, static_cast<double>(n) * setup_.cpu_block_bytes);
  const auto id = static_cast<std::int64_t>(jobs_.size());
  jobs_.push_back(TransferJob{r.id, std::move(accepted), 0});
  ++r.pending_stores;
  events_.push(done, EventKind::kStoreDone, id);
}

void ServingEngine::on_store_done(std::int64_t id) {
  auto& job = jobs_[static_cast<std::size_t>(id)];
  auto& r = requests_[static_cast<std::size_t>(job.request)];
  if (tier_cost_active(TierCost::kStoreVisibility)) {
    r.unreported_stores.insert(r.unreported_stores.end(), job.hashes.begin(), job.hashes.end());
  } else {
    tier_->store_done(job.hashes);
  }
  job.hashes = {};
  if (--r.pending_stores == 0 && r.free_when_stored) {
    r.free_when_stored = false;
    release_blocks(r);
  }
  report_stores(r);
}

void ServingEngine::note_progress(SimRequest& r, std::int64_t from, std::int64_t to, bool computed,
                                  bool from_cpu) {
  const auto fresh = std::max<std::int64_t>(0, to - std::max(from, r.high_water));
  const auto repeat = (to - from) - fresh;
  if (computed) {
    recomputed_tokens_ += repeat;
  } else if (from_cpu) {
    cpu_hit_tokens_ += fresh;
  } else {
    gpu_hit_tokens_ += fresh;
  }
  r.high_water = std::max(r.high_water, to);
}

void ServingEngine::sample_occupancy() {
  occupancy_integral_ += static_cast<double>(last_used_blocks_) * (now_ - last_sample_time_);
  last_sample_time_ = now_;
  last_used_blocks_ = kv_.num_used();
  occupancy_peak_ = std::max(occupancy_peak_, static_cast<double>(last_used_blocks_));
  occupancy_trace_.emplace_back(now_, last_used_blocks_);
}

void ServingEngine::audit() const {
  std::vector<const SimRequest*> holders;
  for (const auto& r : requests_) {
    if (!r.blocks.empty()) holders.push_back(&r);
  }
  auto problem = kv_.check(holders);
  if (problem.empty() && tier_) problem = tier_->check();
  if (!problem.empty())
    throw CheckFailed(fmt::format("simulator invariant violated at t={:.6f} s: {}", now_, problem));
}

namespace {

// 50 time bins, each the time-weighted mean of the step function the (time, used blocks) trace
// describes, as a share of the pool.
std::vector<std::pair<double, double>> binned_occupancy(
    const std::vector<std::pair<double, std::int64_t>>& trace, double start, double span, double blocks) {
  constexpr int kBins = 50;
  const double width = span / kBins;
  std::vector<double> acc(kBins, 0.0);
  for (std::size_t i = 0; i + 1 < trace.size(); ++i) {
    const double a = trace[i].first - start;
    const double b = trace[i + 1].first - start;
    const double used = static_cast<double>(trace[i].second);
    for (int k = std::max(0, static_cast<int>(a / width)); k < kBins && k * width < b; ++k) {
      const double lo = std::max(a, k * width);
      const double hi = std::min(b, (k + 1) * width);
      if (hi > lo) acc[static_cast<std::size_t>(k)] += used * (hi - lo);
    }
  }
  std::vector<std::pair<double, double>> out;
  for (int k = 0; k < kBins; ++k)
    out.emplace_back(k * width, acc[static_cast<std::size_t>(k)] / width / blocks);
  return out;
}

// "pending 0, waiting 3, loading 0, running 1; they hold 12 GPU blocks"
std::string describe_unfinished(const std::deque<SimRequest>& requests) {
  std::int64_t by_state[5] = {};
  std::int64_t held = 0;
  for (const auto& r : requests) {
    if (r.state == RequestState::kFinished) continue;
    ++by_state[static_cast<int>(r.state)];
    held += static_cast<std::int64_t>(r.blocks.size());
  }
  return fmt::format("pending {}, waiting {}, loading {}, running {}; they hold {} GPU blocks", by_state[0],
                     by_state[1], by_state[2], by_state[3], held);
}

}  // namespace

SimResult ServingEngine::summarize() const {
  SimResult out;
  out.requests = static_cast<std::int64_t>(requests_.size());
  std::vector<double> ttft, tpot, e2e;
  double last_finish = first_arrival_;
  for (const auto& r : requests_) {
    out.prompt_tokens += r.prompt_tokens;
    out.output_tokens += r.generated;
    out.preemptions += r.preemptions;
    if (r.state != RequestState::kFinished) continue;
    ++out.finished;
    last_finish = std::max(last_finish, r.finish_time);
    const double first = r.first_token_time - r.arrival;
    ttft.push_back(first);
    e2e.push_back(r.finish_time - r.arrival);
    double per_token = 0;  // a one-token reply has no TPOT and meets any TPOT target
    if (r.output_tokens > 1) {
      per_token = (r.finish_time - r.first_token_time) / static_cast<double>(r.output_tokens - 1);
      tpot.push_back(per_token);
    }
    const auto& slo = options_.slo;
    if ((!slo.ttft_s || first <= *slo.ttft_s) && (!slo.tpot_s || per_token <= *slo.tpot_s))
      ++out.slo_met_requests;
  }
  if (out.finished != out.requests) {
    // Say where they stuck: a deadlock in the scheduler shows as waiting requests with the engine idle.
    throw CheckFailed(fmt::format("simulation ended with {} of {} requests unfinished ({}, {} of {} free)",
                                  out.requests - out.finished, out.requests, describe_unfinished(requests_),
                                  kv_.num_free(), kv_.num_blocks()));
  }
  out.makespan_s = std::max(0.0, last_finish - first_arrival_);
  out.steps = steps_;
  out.engine_busy_s = engine_busy_seconds_;
  out.scheduled_tokens = scheduled_tokens_;
  const double span = out.makespan_s > 0 ? out.makespan_s : 1.0;
  out.prompt_tokens_per_s = static_cast<double>(out.prompt_tokens) / span;
  out.output_tokens_per_s = static_cast<double>(out.output_tokens) / span;
  out.ttft_s = summarize_latency(ttft);
  out.tpot_s = summarize_latency(tpot);
  out.e2e_s = summarize_latency(e2e);
  out.recomputed_tokens = recomputed_tokens_;
  out.clipped_prompts = generator_.clipped_prompts();
  out.rejected_requests = rejected_;
  out.gpu_hit_tokens = gpu_hit_tokens_;
  out.cpu_hit_tokens = cpu_hit_tokens_;
  const double prompts = std::max<double>(1.0, static_cast<double>(out.prompt_tokens));
  out.gpu_hit_rate = static_cast<double>(gpu_hit_tokens_) / prompts;
  out.cpu_hit_rate = static_cast<double>(cpu_hit_tokens_) / prompts;
  out.loads = h2d_.transfers();
  out.stores = d2h_.transfers();
  out.h2d_bytes = h2d_.bytes();
  out.d2h_bytes = d2h_.bytes();
  out.h2d_utilization = h2d_.busy_seconds() / span;
  out.d2h_utilization = d2h_.busy_seconds() / span;
  out.gpu_evictions = kv_.evictions();
  out.cpu_evictions = tier_ ? tier_->evictions() : 0;
  out.cpu_tier_peak_blocks = cpu_peak_;
  const double blocks = static_cast<double>(std::max<std::int64_t>(1, kv_.num_blocks()));
  out.kv_occupancy_mean = occupancy_integral_ / span / blocks;
  out.kv_occupancy_peak = occupancy_peak_ / blocks;
  out.kv_occupancy = binned_occupancy(occupancy_trace_, first_arrival_, span, blocks);
  out.tier_cost_s = tier_cost_s_;
  return out;
}

SimResult run_simulation(const SimulationSetup& setup, const SimOptions& options) {
  ServingEngine engine(setup, options);
  return engine.run();
}

}  // namespace kvb
