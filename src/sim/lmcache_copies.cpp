// LMCache's connector moves KV inside the engine step (sim/tier_costs.cpp, lmcache-sync): a hit is
// retrieved before the forward pass, and each request's new full chunks are stored after it, before
// the step's tokens are sampled. Both lengthen the step; nothing overlaps it.
#include <algorithm>

#include "sim/serving_engine.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {

// One retrieve of `cpu_blocks` into the step being scheduled: a single kernel reads the pinned
// chunks (LMCache's gpu_connectors.py), so one copy of all their bytes, charged to this step.
void ServingEngine::load_in_step(std::int64_t cpu_blocks) {
  const double bytes = static_cast<double>(cpu_blocks) * setup_.block_bytes_per_rank;
  const double seconds = setup_.link.h2d.seconds(1, bytes);
  costs_.lmcache_sync.load_s += seconds;
  transfers_.h2d.submit(clock_.now, to_sim_duration(seconds, "a retrieve"),
                        static_cast<double>(cpu_blocks) * setup_.cpu_block_bytes);
}

// The stores of the step that just ran: each request's full prompt chunks up to what the step
// computed, past what the tier holds, one copy and one synchronize per chunk. Visible at once.
SimDuration ServingEngine::store_in_step() {
  const std::int64_t per_chunk = std::max<std::int64_t>(1, kLmcacheChunkTokens / setup_.server.block_size);
  SimDuration took{};
  for (const auto& s : scheduler_.step()) {
    auto& r = request(s.request);
    if (r.timed_out) continue;
    const auto computed = std::min(s.start + s.tokens, r.prompt_tokens);
    const auto upto = computed / (per_chunk * setup_.server.block_size) * per_chunk;
    if (upto <= r.stored_blocks) continue;
    const std::vector<std::uint64_t> candidates(r.block_hashes.begin() + r.stored_blocks,
                                                r.block_hashes.begin() + upto);
    r.stored_blocks = upto;
    const auto accepted = tier_->reserve(tier_->select_for_store(candidates));
    if (accepted.empty()) continue;
    tier_->store_done(accepted);
    counters_.cpu_peak_blocks = std::max(counters_.cpu_peak_blocks, tier_->size());
    const auto blocks = static_cast<std::int64_t>(accepted.size());
    const auto chunks = (blocks + per_chunk - 1) / per_chunk;
    const auto t = to_sim_duration(
        setup_.link.d2h.seconds(chunks, static_cast<double>(per_chunk) * setup_.block_bytes_per_rank),
        "a store");
    transfers_.d2h.submit(clock_.now, t, static_cast<double>(blocks) * setup_.cpu_block_bytes);
    took += t;
  }
  return took;
}

// Before the step's output is read: its stores, if any, hold the step open that much longer.
bool ServingEngine::step_waits_for_stores() {
  if (costs_.lmcache_sync.stores_done || !costs_.on(TierCost::kLmcacheSync)) {
    costs_.lmcache_sync.stores_done = false;
    return false;
  }
  const SimDuration took = store_in_step();
  if (took <= SimDuration{}) return false;
  costs_.lmcache_sync.stores_done = true;
  counters_.busy += took;
  counters_.tier_cost_s[static_cast<std::size_t>(TierCost::kLmcacheSync)] += to_seconds(took);
  push_event(clock_.now + took, EventKind::kStepDone, 0);
  return true;
}

}  // namespace kvb
