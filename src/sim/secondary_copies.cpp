// The engine's side of a secondary tier (sim/secondary_tier.hpp): the write-through of each CPU-tier
// store and the promotion of blocks only the secondary holds, as vLLM's TieringOffloadingManager
// does from 0.22 (vllm/v1/kv_offload/tiering/manager.py: complete_store, lookup,
// _initiate_promotion); or, side by side (kv-offloading-medium cpu+file), a second connector's
// stores and loads under vLLM's MultiConnector (multi_connector.py: "Load KV from the first
// connector that advertises available tokens ... Save to all connectors").
#include "sim/file_tier.hpp"
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
  const auto writer = secondary_->writer(job);  // side by side: the request whose store it is
  if (writer < 0) tier_->release(secondary_->written(job));
  secondary_->finish_write(job);
  if (writer >= 0) reader_done(request(writer));
}

// Side by side, the file tier's connector stores the request's full blocks from the GPU itself
// (into its own staging buffers: llmd_fs_backend), beside the CPU tier's store, and the request's
// GPU blocks are held until both have sent (MultiConnector counts each connector's async save).
// Writes queued past the connector's bound are dropped (sim/file_tier.hpp); a preemption does not
// wait for them (storage_offload.cpp wait_job cancels those still queued).
void ServingEngine::write_files(SimRequest& r, const std::vector<std::uint64_t>& hashes) {
  if (secondary_->write_backlog(clock_.now) > kFileWriteQueue) return;
  const auto job = secondary_->start_write(clock_.now, hashes, r.id);
  if (job < 0) return;
  ++r.pending_stores;  // not in stores_end: a preemption cancels the connector's queued writes
  r.stored_any = true;
  push_event(secondary_->done_at(job), EventKind::kDiskWriteDone, job);
}

// Side by side, a request the CPU tier holds none of its next blocks for is loaded by the file
// tier's connector: file -> staging -> GPU at the disk's read rate; nothing enters the CPU tier.
void ServingEngine::read_files(TransferJob job) {
  job.direct = true;
  job.disk = job.hashes;
  const SimTime done = secondary_->start_read(clock_.now, job.disk);
  push_event(done, EventKind::kDiskReadDone, transfers_.add(std::move(job)));
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
  if (job.direct) {  // straight to the GPU: the load ends here
    on_load_done(id);
    return;
  }
  tier_->store_done(job.disk);
  load_to_gpu(id);
}

// Of the tokens the load brings, those in promoted blocks that count as hits (past the request's
// high water, as EngineCounters::note_progress counts them).
std::int64_t ServingEngine::promoted_fresh_tokens(const TransferJob& job, const SimRequest& r) const {
  const std::int64_t bs = setup_.server.block_size;
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
