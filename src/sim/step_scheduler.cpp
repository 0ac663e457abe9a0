// What one engine step computes, following vLLM v1's scheduler: running requests first (decode
// tokens and prefill chunks, preempting the newest running request when the pool runs dry),
// then waiting requests in order while the token budget, max-num-seqs and free blocks allow.
#include <algorithm>

#include "sim/serving_engine.hpp"

namespace kvb {

void ServingEngine::try_start_step() {
  if (engine_busy_) return;
  step_.clear();
  std::int64_t budget = setup_.max_num_batched_tokens;
  const bool preempted = schedule_running(budget);
  // vLLM admits nothing new in a step that preempted. When that leaves the step empty (the
  // running requests preempted one another, the pool held by loaded requests that wait), its
  // next scheduler pass admits from the queue at once; without that pass no event would ever
  // wake the engine again.
  if (!preempted || step_.empty()) schedule_waiting(budget, false);
  // Async scheduling holds back a request that arrived after this step's schedule call, but a
  // step with nothing in it was never scheduled: the loop schedules it as soon as it can.
  if (step_.empty() && !waiting_.empty()) schedule_waiting(budget, true);
  if (step_.empty()) {
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
  for (const auto& s : step_) work.add(s.start, s.tokens, setup_.predictor.sliding_window());
  engine_busy_ = true;
  ++steps_started_;
  double seconds = setup_.predictor.step_seconds(work);
  seconds += tier_step_cost(work, seconds);
  counters_.busy_s += seconds;
  push_event(now_ + seconds, EventKind::kStepDone, 0);
}

bool ServingEngine::schedule_running(std::int64_t& budget) {
  bool preempted = false;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    auto& r = requests_[static_cast<std::size_t>(running_[i])];
    const auto n = std::min(r.known_tokens() - r.computed, budget);
    bool placed = false;
    while (!placed) {
      if (kv_.allocate(r, {}, r.computed + n)) {
        placed = true;
        break;
      }
      // Out of blocks: preempt the lowest-priority (last admitted) running request.
      const auto victim = running_.back();
      running_.pop_back();
      preempt(requests_[static_cast<std::size_t>(victim)]);
      preempted = true;
      if (victim == r.id) break;
    }
    if (!placed) break;
    step_.push_back({r.id, r.computed, n});
    budget -= n;
    counters_.scheduled_tokens += n;
  }
  return preempted;
}

void ServingEngine::schedule_waiting(std::int64_t& budget, bool any_arrival) {
  const auto max_seqs = static_cast<std::size_t>(setup_.max_num_seqs);
  std::vector<std::int64_t> held;  // reached the scheduler after this step's schedule call
  while (!waiting_.empty() && budget > 0 && running_.size() < max_seqs) {
    auto& r = requests_[static_cast<std::size_t>(waiting_.front())];
    if (!any_arrival && r.first_step > steps_started_) {
      held.push_back(r.id);
      waiting_.pop_front();
      continue;
    }
    if (admit_head(r, budget)) continue;
    if (unblock_waiting(r.id)) continue;
    break;
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) waiting_.push_front(*it);
}

// The head of the waiting queue leaves it (into this step, to a load, or behind another request's
// load) and true is returned; false where the pool or the admission gate cannot take it now.
bool ServingEngine::admit_head(SimRequest& r, std::int64_t& budget) {
  std::vector<std::int32_t> hits;
  std::int64_t start = r.computed;
  std::int64_t loaded = 0;  // LMCache: CPU hits retrieved in this step
  if (r.blocks.empty()) {
    const auto& found = lookup_prefix(r);
    hits = found.gpu_hits;
    const auto g = static_cast<std::int64_t>(hits.size());
    const auto cpu = found.cpu_blocks;
    if (cpu > 0 && waits_for_other_load(r, g, cpu)) {
      // vLLM >= 0.15 skips it until that load ends (load-convoy); the queue goes on.
      waiting_.pop_front();
      costs_.load_convoy.waiting.push_back(r.id);
      return true;
    }
    if (!fits_whole_prompt(r, hits)) return false;  // the head waits; nothing behind it passes
    if (cpu > 0 && costs_.on(TierCost::kLmcacheSync)) {
      loaded = cpu;  // LMCache retrieves before the forward pass: the request runs in this step
    } else if (cpu > 0) {
      // Load asynchronously; the request waits, the batch does not.
      if (!kv_.allocate(r, hits, (g + cpu) * block_size_)) return false;
      waiting_.pop_front();
      counters_.note_progress(r, 0, g * block_size_, false, false);
      start_load(r, hits, cpu);
      return true;
    }
    start = (g + loaded) * block_size_;
  } else if (!fits_whole_prompt(r, hits)) {
    return false;
  }
  const auto n = std::min(r.known_tokens() - start, budget);
  if (!kv_.allocate(r, hits, start + n)) return false;
  waiting_.pop_front();
  counters_.note_progress(r, 0, start - loaded * block_size_, false, false);
  if (loaded > 0) {
    counters_.note_progress(r, start - loaded * block_size_, start, false, true);
    load_in_step(loaded);
  }
  r.computed = start;
  r.state = RequestState::kRunning;
  running_.push_back(r.id);
  step_.push_back({r.id, start, n});
  budget -= n;
  counters_.scheduled_tokens += n;
  return true;
}

const ServingEngine::PrefixLookup& ServingEngine::lookup_prefix(const SimRequest& r) {
  const std::uint64_t tier_version = tier_ ? tier_->version() : 0;
  if (lookup_.request == r.id && lookup_.known_tokens == r.known_tokens() &&
      lookup_.kv_version == kv_.version() && lookup_.tier_version == tier_version) {
    return lookup_;
  }
  lookup_.request = r.id;
  lookup_.known_tokens = r.known_tokens();
  lookup_.kv_version = kv_.version();
  lookup_.tier_version = tier_version;
  // At least one token is always computed, so a full hit still leaves the last one.
  const auto max_hit = (r.known_tokens() - 1) / block_size_;
  lookup_.gpu_hits = kv_.find_prefix(r.block_hashes, max_hit);
  lookup_.cpu_blocks = 0;
  if (tier_) {
    const auto g = static_cast<std::int64_t>(lookup_.gpu_hits.size());
    while (g + lookup_.cpu_blocks < max_hit &&
           tier_->ready(r.block_hashes[static_cast<std::size_t>(g + lookup_.cpu_blocks)])) {
      ++lookup_.cpu_blocks;
    }
  }
  return lookup_;
}

bool ServingEngine::waits_for_other_load(const SimRequest& r, std::int64_t first, std::int64_t count) const {
  if (!costs_.on(TierCost::kLoadConvoy)) return false;
  for (std::int64_t i = first; i < first + count; ++i) {
    if (tier_->loading(r.block_hashes[static_cast<std::size_t>(i)])) return true;
  }
  return false;
}

bool ServingEngine::fits_whole_prompt(const SimRequest& r, const std::vector<std::int32_t>& hits) const {
  if (!reserve_full_prompt_) return true;
  const auto needed = kv_.blocks_to_allocate(r, hits, r.known_tokens());
  // A prompt larger than the whole pool is vLLM's start-up error (max-model-len does not fit), not
  // a wait: the simulator lets it run in chunks, as it does without the gate.
  return needed <= kv_.num_free() || needed > kv_.num_blocks();
}

bool ServingEngine::unblock_waiting(std::int64_t head) {
  // Loaded requests hold blocks while they wait. When they fill the pool and nothing runs, the
  // newest of them gives its blocks back (its KV stays in the CPU tier) so the head can start.
  if (!running_.empty() || !step_.empty()) return false;
  for (auto it = waiting_.rbegin(); it != waiting_.rend(); ++it) {
    auto& w = requests_[static_cast<std::size_t>(*it)];
    if (*it == head || w.blocks.empty()) continue;
    kv_.release(w);
    w.computed = 0;
    ++w.preemptions;
    return true;
  }
  return false;
}

void ServingEngine::preempt(SimRequest& r) {
  // From 0.14 (#29870) the connector completes a preempted request's stores in the tier at once
  // (scheduler build_connector_meta: complete_store), and the worker waits for their copies before
  // the next forward pass may overwrite the freed blocks (worker handle_preemptions: wait).
  if (r.pending_stores > 0 && costs_.on(TierCost::kPreemptFlush)) {
    costs_.preempt_flush.until = std::max(costs_.preempt_flush.until, r.stores_end);
    tier_->store_done(r.unreported_stores);
    r.unreported_stores = {};
  }
  kv_.release(r);  // the blocks stay in the prefix cache until reused
  r.computed = 0;
  r.state = RequestState::kWaiting;
  ++r.preemptions;
  waiting_.push_front(r.id);
}

}  // namespace kvb
