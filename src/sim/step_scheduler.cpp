// What one engine step computes, following vLLM v1's scheduler: running requests first (decode
// tokens and prefill chunks, preempting the newest running request when the pool runs dry),
// then waiting requests in order while the token budget, max-num-seqs and free blocks allow.
#include "sim/step_scheduler.hpp"

#include <algorithm>

#include "sim/simulation_setup.hpp"

namespace kvb {

void StepScheduler::schedule(std::int64_t steps_started) {
  step_.clear();
  std::int64_t budget = c_.setup.server.max_num_batched_tokens;
  const bool preempted = schedule_running(budget);
  // vLLM admits nothing new in a step that preempted. When that leaves the step empty (the
  // running requests preempted one another, the pool held by loaded requests that wait), its
  // next scheduler pass admits from the queue at once; without that pass no event would ever
  // wake the engine again.
  if (!preempted || step_.empty()) schedule_waiting(budget, steps_started, false);
  // Async scheduling holds back a request that arrived after this step's schedule call, but a
  // step with nothing in it was never scheduled: the loop schedules it as soon as it can.
  if (step_.empty() && !waiting_.empty()) schedule_waiting(budget, steps_started, true);
}

bool StepScheduler::in_step(std::int64_t id) const {
  return std::any_of(step_.begin(), step_.end(), [&](const Scheduled& s) { return s.request == id; });
}

void StepScheduler::end_step(bool any_finished) {
  step_.clear();
  if (!any_finished) return;
  running_.erase(
      std::remove_if(running_.begin(), running_.end(),
                     [this](std::int64_t id) { return request(id).state == RequestState::kFinished; }),
      running_.end());
}

void StepScheduler::release_convoy(std::int64_t first_step) {
  auto& convoy = c_.costs.load_convoy.waiting;
  while (!convoy.empty()) {
    request(convoy.back()).first_step = first_step;
    waiting_.push_front(convoy.back());
    convoy.pop_back();
  }
}

void StepScheduler::drop(std::int64_t id) {
  const auto out = [id](auto& queue) {
    queue.erase(std::remove(queue.begin(), queue.end(), id), queue.end());
  };
  out(waiting_);
  out(c_.costs.load_convoy.waiting);
  out(running_);
}

void StepScheduler::forget(std::int64_t id) {
  if (lookup_.request == id) lookup_.request = -1;
}

bool StepScheduler::schedule_running(std::int64_t& budget) {
  bool preempted = false;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    auto& r = request(running_[i]);
    const auto n = std::min(r.known_tokens() - r.computed, budget);
    bool placed = false;
    while (!placed) {
      if (c_.kv.allocate(r, {}, r.computed + n)) {
        placed = true;
        break;
      }
      // Out of blocks: preempt the lowest-priority (last admitted) running request.
      const auto victim = running_.back();
      running_.pop_back();
      preempt(request(victim));
      preempted = true;
      if (victim == r.id) break;
    }
    if (!placed) break;
    step_.push_back({r.id, r.computed, n});
    budget -= n;
    c_.counters.scheduled_tokens += n;
  }
  return preempted;
}

void StepScheduler::schedule_waiting(std::int64_t& budget, std::int64_t steps_started, bool any_arrival) {
  const auto max_seqs = static_cast<std::size_t>(c_.setup.server.max_num_seqs);
  std::vector<std::int64_t> held;  // reached the scheduler after this step's schedule call
  while (!waiting_.empty() && budget > 0 && running_.size() < max_seqs) {
    auto& r = request(waiting_.front());
    if (!any_arrival && r.first_step > steps_started) {
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
bool StepScheduler::admit_head(SimRequest& r, std::int64_t& budget) {
  const auto block = c_.setup.server.block_size;
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
      c_.costs.load_convoy.waiting.push_back(r.id);
      return true;
    }
    if (!fits_whole_prompt(r, hits)) return false;  // the head waits; nothing behind it passes
    if (cpu > 0 && c_.costs.on(TierCost::kLmcacheSync)) {
      loaded = cpu;  // LMCache retrieves before the forward pass: the request runs in this step
    } else if (cpu > 0) {
      return admit_from_cpu(r, hits, cpu);
    }
    start = (g + loaded) * block;
  } else if (!fits_whole_prompt(r, hits)) {
    return false;
  }
  const auto n = std::min(r.known_tokens() - start, budget);
  if (!c_.kv.allocate(r, hits, start + n)) return false;
  waiting_.pop_front();
  c_.counters.note_progress(r, 0, start - loaded * block, false, false);
  if (loaded > 0) {
    c_.counters.note_progress(r, start - loaded * block, start, false, true);
    c_.actions.load_in_step(loaded);
  }
  r.computed = start;
  r.state = RequestState::kRunning;
  running_.push_back(r.id);
  step_.push_back({r.id, start, n});
  budget -= n;
  c_.counters.scheduled_tokens += n;
  return true;
}

// The head's CPU hits load asynchronously; the request waits, the batch does not.
bool StepScheduler::admit_from_cpu(SimRequest& r, const std::vector<std::int32_t>& hits, std::int64_t cpu) {
  const auto g = static_cast<std::int64_t>(hits.size());
  if (!c_.kv.allocate(r, hits, (g + cpu) * c_.setup.server.block_size)) return false;
  waiting_.pop_front();
  c_.counters.note_progress(r, 0, g * c_.setup.server.block_size, false, false);
  c_.actions.start_load(r, hits, cpu);
  return true;
}

const StepScheduler::PrefixLookup& StepScheduler::lookup_prefix(const SimRequest& r) {
  // Both versions only grow, so their sum changes whenever either does.
  const std::uint64_t tier_version =
      (c_.tier ? c_.tier->version() : 0) + (c_.secondary ? c_.secondary->version() : 0);
  if (lookup_.request == r.id && lookup_.known_tokens == r.known_tokens() &&
      lookup_.kv_version == c_.kv.version() && lookup_.tier_version == tier_version) {
    return lookup_;
  }
  lookup_.request = r.id;
  lookup_.known_tokens = r.known_tokens();
  lookup_.kv_version = c_.kv.version();
  lookup_.tier_version = tier_version;
  // At least one token is always computed, so a full hit still leaves the last one.
  const auto max_hit = (r.known_tokens() - 1) / c_.setup.server.block_size;
  lookup_.gpu_hits = c_.kv.find_prefix(r.block_hashes, max_hit);
  lookup_.cpu_blocks = 0;
  if (c_.tier) {
    const auto g = static_cast<std::int64_t>(lookup_.gpu_hits.size());
    // Each block is looked up in the CPU tier, then the secondary (TieringOffloadingManager.lookup);
    // the run stops at the first block in neither. Side by side (MultiConnector) the CPU tier's
    // connector loads the request if it holds its next block, else the file tier's alone.
    const bool side = c_.secondary != nullptr && c_.secondary->side_by_side();
    const bool files = side && g < max_hit && !c_.tier->ready(r.block_hashes[static_cast<std::size_t>(g)]);
    const auto found = [this, side, files](std::uint64_t h) {
      if (side) return files ? c_.secondary->ready(h) : c_.tier->ready(h);
      return c_.tier->ready(h) || (c_.secondary != nullptr && c_.secondary->ready(h));
    };
    while (g + lookup_.cpu_blocks < max_hit &&
           found(r.block_hashes[static_cast<std::size_t>(g + lookup_.cpu_blocks)])) {
      ++lookup_.cpu_blocks;
    }
  }
  return lookup_;
}

bool StepScheduler::waits_for_other_load(const SimRequest& r, std::int64_t first, std::int64_t count) const {
  if (!c_.costs.on(TierCost::kLoadConvoy)) return false;
  for (std::int64_t i = first; i < first + count; ++i) {
    if (c_.tier->loading(r.block_hashes[static_cast<std::size_t>(i)])) return true;
  }
  return false;
}

bool StepScheduler::fits_whole_prompt(const SimRequest& r, const std::vector<std::int32_t>& hits) const {
  if (!reserve_full_prompt_) return true;
  const auto needed = c_.kv.blocks_to_allocate(r, hits, r.known_tokens());
  // A prompt larger than the whole pool is vLLM's start-up error (max-model-len does not fit), not
  // a wait: the simulator lets it run in chunks, as it does without the gate.
  return needed <= c_.kv.num_free() || needed > c_.kv.num_blocks();
}

bool StepScheduler::unblock_waiting(std::int64_t head) {
  // Loaded requests hold blocks while they wait. When they fill the pool and nothing runs, the
  // newest of them gives its blocks back (its KV stays in the CPU tier) so the head can start.
  if (!running_.empty() || !step_.empty()) return false;
  for (auto it = waiting_.rbegin(); it != waiting_.rend(); ++it) {
    auto& w = request(*it);
    if (*it == head || w.blocks.empty()) continue;
    c_.kv.release(w);
    w.computed = 0;
    ++w.preemptions;
    return true;
  }
  return false;
}

void StepScheduler::preempt(SimRequest& r) {
  // From 0.14 (#29870) the connector completes a preempted request's stores in the tier at once
  // (scheduler build_connector_meta: complete_store), and the worker waits for their copies before
  // the next forward pass may overwrite the freed blocks (worker handle_preemptions: wait).
  if (r.pending_stores > 0 && c_.costs.on(TierCost::kPreemptFlush)) {
    auto& until = c_.costs.preempt_flush.until;
    until = std::max(until, r.stores_end);
    c_.tier->store_done(r.unreported_stores);
    r.unreported_stores = {};
  }
  c_.kv.release(r);  // the blocks stay in the prefix cache until reused
  r.computed = 0;
  r.state = RequestState::kWaiting;
  ++r.preemptions;
  waiting_.push_front(r.id);
}

}  // namespace kvb
