// The engine's side of a secondary tier (sim/secondary_tier.hpp): the write-through of each CPU-tier
// store and the promotion of blocks only the secondary holds, as vLLM's TieringOffloadingManager
// does from 0.22 (vllm/v1/kv_offload/tiering/manager.py: complete_store, lookup,
// _initiate_promotion).
#include "sim/serving_engine.hpp"

namespace kvb {

// A store into the CPU tier completed: its blocks are written to the secondary, the CPU copies held
// (not evicted) until the write has read them.
void ServingEngine::write_through(const std::vector<std::uint64_t>& hashes) {
  const auto job = secondary_->start_write(clock_.now, hashes);
  if (job < 0) return;
  tier_->hold(secondary_->written(job));
  push_event(secondary_->done_at(job), EventKind::kDiskWriteDone, job);
}

void ServingEngine::on_disk_write_done(std::int64_t job) {
  tier_->release(secondary_->written(job));
  secondary_->finish_write(job);
}

// Pins the load's blocks in the CPU tier and reserves CPU-tier room for those only the secondary
// holds (job.disk). A block the CPU tier has no room for ends the load there: vLLM's lookup then
// reports a miss for it (_initiate_promotion returns False when the primary is full).
void ServingEngine::promote(TransferJob& job) {
  std::vector<std::uint64_t> in_cpu;
  for (const auto h : job.hashes)
    if (tier_->ready(h)) in_cpu.push_back(h);
  tier_->pin_for_load(in_cpu);  // first, so reserving room for the others cannot evict them
  std::size_t kept = job.hashes.size();
  for (std::size_t i = 0; i < job.hashes.size(); ++i) {
    const auto h = job.hashes[i];
    if (tier_->ready(h)) continue;
    // Present but not ready: another request's promotion or a store in flight holds its room.
    if (!tier_->present(h) && tier_->reserve({h}).empty()) {
      kept = i;
      break;
    }
    job.disk.push_back(h);
  }
  counters_.cpu_peak_blocks = std::max(counters_.cpu_peak_blocks, tier_->size());
  const std::vector<std::uint64_t> dropped(job.hashes.begin() + static_cast<std::ptrdiff_t>(kept),
                                           job.hashes.end());
  tier_->unpin(dropped);  // the CPU-ready blocks past the cut (the others were never pinned)
  job.hashes.resize(kept);
  tier_->pin_for_load(job.disk);
}

// The disk -> CPU leg ended: the promoted blocks are ready in the CPU tier (still pinned by the
// load), and the CPU -> GPU leg starts.
void ServingEngine::on_disk_read_done(std::int64_t id) {
  auto& job = transfers_[id];
  secondary_->finish_read(job.disk);
  tier_->store_done(job.disk);
  load_to_gpu(id);
}

// Of the tokens the load brings, those in promoted blocks that count as hits (past the request's
// high water, as EngineCounters::note_progress counts them).
std::int64_t ServingEngine::promoted_fresh_tokens(const TransferJob& job, const SimRequest& r) const {
  const std::int64_t bs = setup_.block_size;
  std::int64_t fresh = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < job.hashes.size() && k < job.disk.size(); ++i) {
    if (job.hashes[i] != job.disk[k]) continue;
    ++k;
    const auto first = (job.gpu_hit_blocks + static_cast<std::int64_t>(i)) * bs;
    fresh += std::max<std::int64_t>(0, first + bs - std::max(first, r.high_water));
  }
  return fresh;
}

}  // namespace kvb
