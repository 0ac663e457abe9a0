#include "sim/fleet_simulation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/interrupt.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/trace_traffic.hpp"

namespace kvb {
namespace {

// The session router's key: the conversation, or for a trace request its first blocks.
std::uint64_t affinity_of(const SimRequest& r) {
  return r.session >= 0 ? static_cast<std::uint64_t>(r.session) : conversation_key(r.block_hashes);
}

}  // namespace

FleetSimulation::FleetSimulation(const SimulationSetup& setup, const SimOptions& options)
    : setup_(setup),
      options_(options),
      generator_(setup.scenario.workload, setup.scenario.seed, setup.server.block_size,
                 setup.server.max_model_len, setup.scenario.origin),
      router_(setup.scenario.fleet.router, setup.scenario.seed) {
  if (setup.scenario.trace)
    trace_ = std::make_unique<TraceReader>(setup.scenario.trace->path, setup.scenario.trace->options);
  const int n = setup.scenario.fleet.replicas;
  require_memory_for(setup, host_memory_available());  // before the first table is allocated
  for (int i = 0; i < n; ++i)
    engines_.push_back(std::make_unique<ServingEngine>(setup, options, i, clock_, *this));
  states_.resize(static_cast<std::size_t>(n));
  tallies_.resize(static_cast<std::size_t>(n));
  in_flight_ = LoadIndex(n);
  // llm-d autotunes the record's size to vLLM's num_gpu_blocks (approximateprefix/plugin.go).
  if (setup.scenario.fleet.router == RouterKind::kPrefixApprox)
    sent_.assign(static_cast<std::size_t>(n), SentPrefixIndex(setup.gpu_blocks));
}

SimResult FleetSimulation::run() {
  const auto& arrival = setup_.scenario.workload.arrival;
  if (trace_) {
    admit_next_trace_request();
  } else if (arrival.process == ArrivalProcess::kClosed) {
    for (int u = 0; u < arrival.users && generator_.budget_left(); ++u) start_session(SimTime{});
  } else if (const auto t = generator_.next_session_start()) {
    start_session(*t);
  }
  while (!clock_.events.empty()) {
    throw_if_interrupted();  // a cut simulation is no result: the sweep keeps the points before it
    dispatch(clock_.events.pop());
  }
  return summarize();
}

void FleetSimulation::dispatch(const Event& e) {
  clock_.now = e.time;
  auto* engine = engines_[static_cast<std::size_t>(e.replica)].get();
  switch (e.kind) {
    case EventKind::kArrival:
      on_arrival(e.id);
      engine =
          engines_[static_cast<std::size_t>(clock_.requests[static_cast<std::size_t>(e.id)].replica)].get();
      break;
    case EventKind::kAdmit:
      engine->admit(e.id);
      break;
    case EventKind::kStepDone:
      engine->on_step_done();
      break;
    case EventKind::kLoadDone:
      engine->on_load_done(e.id);
      break;
    case EventKind::kStoreDone:
      engine->on_store_done(e.id);
      break;
    case EventKind::kDiskWriteDone:
      engine->on_disk_write_done(e.id);
      break;
    case EventKind::kDiskReadDone:
      engine->on_disk_read_done(e.id);
      break;
    case EventKind::kTimeout:
      // Only if the slot still holds the request this timeout is for: it may have been answered,
      // retired and reused since, which moved the slot's generation on.
      if (e.generation == generations_[static_cast<std::size_t>(e.id)]) engine->on_timeout(e.id);
      break;
    case EventKind::kClientStop:
      stop_client();
      break;
  }
  engine->try_start_step();
  // Only now: a slot freed mid-event could be handed out while a handler still names its id.
  for (const auto id : retiring_) {
    auto& slot = clock_.requests[static_cast<std::size_t>(id)];
    slot = SimRequest{};
    slot.state = RequestState::kFinished;
    ++generations_[static_cast<std::size_t>(id)];
    free_slots_.push_back(id);
  }
  retiring_.clear();
}

std::int64_t FleetSimulation::take_slot() {
  if (free_slots_.empty()) {
    clock_.requests.emplace_back();
    generations_.push_back(0);
    return static_cast<std::int64_t>(clock_.requests.size()) - 1;
  }
  const auto id = free_slots_.back();
  free_slots_.pop_back();
  return id;
}

void FleetSimulation::start_session(SimTime at) {
  Session s = generator_.start_session();
  if (s.turns == 0) return;
  s.id = static_cast<std::int64_t>(sessions_.size());
  sessions_.push_back(std::move(s));
  const auto id = take_slot();
  clock_.requests[static_cast<std::size_t>(id)] = generator_.make_request(sessions_.back(), 0, at, id);
  clock_.events.push(at, EventKind::kArrival, id);
}

// The trace's next request that vLLM would accept, pushed as an arrival; a prompt and reply
// longer than max-model-len is refused as vLLM's API server refuses it, and counted.
void FleetSimulation::admit_next_trace_request() {
  TraceRequest t;
  while (trace_->next(t)) {
    if (t.prompt_tokens < 1 ||
        t.prompt_tokens + std::max<std::int64_t>(1, t.output_tokens) > setup_.server.max_model_len) {
      ++rejected_;
      continue;
    }
    const auto id = take_slot();
    auto& r = clock_.requests[static_cast<std::size_t>(id)];
    r = simulated_request(t, id, setup_.scenario.trace->options.block_tokens, setup_.server.block_size);
    const SimTime at = std::max(r.arrival, clock_.now);
    r.arrival = at;
    clock_.events.push(at, EventKind::kArrival, id);
    return;
  }
}

// Workload duration: the client aborts what it has in flight (each engine frees it as it does a
// timed-out request) and sends nothing more.
void FleetSimulation::stop_client() {
  client_stopped_ = true;
  for (auto& r : clock_.requests) {
    if (r.sent && r.state != RequestState::kFinished && !r.timed_out)
      engines_[static_cast<std::size_t>(r.replica)]->on_timeout(r.id);
  }
}

void FleetSimulation::on_arrival(std::int64_t id) {
  auto& r = clock_.requests[static_cast<std::size_t>(id)];
  if (client_stopped_) {  // a turn due after the client stopped is never sent
    r.state = RequestState::kFinished;
    retiring_.push_back(id);
    return;
  }
  r.sent = true;
  if (first_arrival_ == kNoTime) {
    first_arrival_ = clock_.now;
    for (auto& e : engines_) e->start_clock();
    if (const double d = setup_.scenario.workload.duration_s; d > 0)
      clock_.events.push(clock_.now + to_sim_duration(d, "the workload's duration"), EventKind::kClientStop,
                         0);
  }
  if (trace_) {
    admit_next_trace_request();  // streamed: one request read ahead, never the whole file
  } else if (r.turn == 0 && setup_.scenario.workload.arrival.process != ArrivalProcess::kClosed) {
    // Open loop: the next session is drawn when this one's first request arrives.
    if (const auto t = generator_.next_session_start()) start_session(std::max(*t, clock_.now));
  }
  // vLLM's /reset_prefix_cache, as a benchmark client calls it on every server before a request.
  if (!trace_ && setup_.scenario.workload.reset_prefix_cache) {
    for (auto& e : engines_) e->reset_prefix_cache();
  }
  const int replica = route(r);
  if (const double t = setup_.scenario.workload.client_timeout_s; t > 0)
    clock_.events.push(clock_.now + to_sim_duration(t, "client-timeout"), EventKind::kTimeout, id, replica,
                       generations_[static_cast<std::size_t>(id)]);
  // The API server's share (tokenisation, scheduling, streaming): the request waits it out
  // before the scheduler sees it; its latencies count from the arrival.
  const double overhead = setup_.predictor.calibration().request_overhead_s;
  if (overhead > 0) {
    clock_.events.push(clock_.now + to_sim_duration(overhead, "the request overhead"), EventKind::kAdmit, id,
                       replica);
  } else {
    engines_[static_cast<std::size_t>(replica)]->admit(id);
  }
}

int FleetSimulation::route(SimRequest& r) {
  if (engines_.size() > 1 && !router_.reads_published_state()) {
    // Round-robin, least-loaded, session: the router's own counts, no scan over the replicas.
    r.replica =
        router_.choose(RoutedRequest{r.prompt_tokens / setup_.server.block_size, affinity_of(r)}, in_flight_);
  } else if (engines_.size() > 1) {
    route_by_published_state(r);
  }
  in_flight_.add(r.replica, 1);
  return r.replica;
}

// The prefix-aware routers score every replica (llm-d's scorers do): what each publishes, read
// per request.
void FleetSimulation::route_by_published_state(SimRequest& r) {
  const auto sent = sent_.empty()
                        ? std::vector<std::uint64_t>{}
                        : sent_prefix_hashes(r.block_hashes, r.prompt_tokens, setup_.server.block_size);
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    auto& s = states_[i];
    s = ReplicaState{};
    s.in_flight = in_flight_.load(static_cast<int>(i));
    s.waiting = engines_[i]->waiting();
    s.kv_usage = engines_[i]->kv_usage();
    if (!sent_.empty()) {
      s.gpu_prefix_blocks = sent_[i].match(sent);  // what the router sent there, not what is cached
    } else {
      engines_[i]->published_prefix(r, s);
    }
  }
  const RoutedRequest routed{
      sent_.empty() ? r.prompt_tokens / setup_.server.block_size : static_cast<std::int64_t>(sent.size()),
      affinity_of(r)};
  r.replica = router_.choose(routed, states_);
  if (!sent_.empty()) sent_[static_cast<std::size_t>(r.replica)].record(sent);
}

void FleetSimulation::on_retired(SimRequest& r) {
  auto& t = tallies_[static_cast<std::size_t>(r.replica)];
  retiring_.push_back(r.id);
  t.last_finish = std::max(t.last_finish, r.finish_time);  // the run lasts until its last abort too
  if (r.timed_out) {                                       // the client counts it as a failure, nothing else
    ++t.timed_out;
    return;
  }
  ++t.requests;
  t.prompt_tokens += r.prompt_tokens;
  t.output_tokens += r.generated;
  t.preemptions += r.preemptions;
  t.last_finish = std::max(t.last_finish, r.finish_time);
  const double first = to_seconds(r.first_token_time - r.arrival);
  t.ttft.push_back(first);
  t.e2e.push_back(to_seconds(r.finish_time - r.arrival));
  double per_token = 0;  // a one-token reply has no TPOT and meets any TPOT target
  if (r.output_tokens > 1) {
    per_token = to_seconds(r.finish_time - r.first_token_time) / static_cast<double>(r.output_tokens - 1);
    t.tpot.push_back(per_token);
  }
  const auto& slo = options_.slo;
  if ((!slo.ttft_s || first <= *slo.ttft_s) && (!slo.tpot_s || per_token <= *slo.tpot_s)) ++t.slo_met;
}

void FleetSimulation::on_finished(SimRequest& r) {
  in_flight_.add(r.replica, -1);
  if (r.session < 0) return;  // a trace request: the trace schedules what comes next
  const auto& s = sessions_[static_cast<std::size_t>(r.session)];
  const int next = r.turn + 1;
  // A user whose turn timed out ends the conversation; a stopped client sends nothing more.
  if (next < s.turns && !r.timed_out && !client_stopped_) {
    const SimTime at = clock_.now + s.think[static_cast<std::size_t>(next)];
    const auto id = take_slot();
    clock_.requests[static_cast<std::size_t>(id)] = generator_.make_request(s, next, at, id);
    clock_.events.push(at, EventKind::kArrival, id);
    return;
  }
  router_.forget(affinity_of(r));
  sessions_[static_cast<std::size_t>(r.session)] = Session{};  // its turns are done
  if (setup_.scenario.workload.arrival.process == ArrivalProcess::kClosed && generator_.budget_left() &&
      !client_stopped_)
    start_session(clock_.now);
}

}  // namespace kvb
