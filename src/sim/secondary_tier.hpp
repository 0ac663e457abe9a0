#pragma once
// A secondary tier behind the CPU tier (a local disk or a file system), as vLLM's tiering runs it
// from 0.22 (vllm/v1/kv_offload/tiering/manager.py, TieringOffloadingManager, PR #40020; the
// file-system tier vllm/v1/kv_offload/tiering/fs/manager.py, PR #41735):
//   * write-through: a block whose store into the CPU tier completed is written to the secondary
//     (complete_store cascades it), the CPU block held while the write reads it;
//   * the CPU tier evicting a block leaves the secondary's copy;
//   * a lookup falls through GPU -> CPU -> secondary; a block found only in the secondary is
//     promoted: room reserved in the CPU tier, read disk -> CPU, then loaded CPU -> GPU.
// Its state, links and counts are here; the engine (sim/serving_engine.cpp) drives it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/eviction_policy.hpp"
#include "sim/job_slots.hpp"
#include "sim/link_queue.hpp"
#include "sim/offload_tier.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_time.hpp"

namespace kvb {

// The tier as the run uses it, resolved from the server's keys (sim/simulation_setup.cpp).
struct SecondaryTierFigures {
  std::int64_t blocks = 0;      // capacity: CPU-tier blocks (all ranks) it holds
  double read_bytes_per_s = 0;  // the node's disk, all ranks together
  double write_bytes_per_s = 0;
  double latency_s = 0;  // per chunk; a job's chunks run in parallel, so once per job
  EvictionKind policy = EvictionKind::kLru;
  bool stated = true;  // the rates as the operator stated them, not a kvbench storage measurement
  // kv-offloading-medium cpu+file: beside the CPU tier under vLLM's MultiConnector, not behind it
  // (sim/secondary_copies.cpp): stores go from the GPU to both, a request loads from the CPU tier
  // if it holds any of its next blocks, else straight from the files; nothing is promoted.
  bool side_by_side = false;
};

// The scenario's secondary tier for blocks of `block_bytes` (all ranks); none where it sets none or
// a size of 0. UsageError, one line naming the scenario and the keys, for a tier vLLM would not run:
// without a CPU tier to cascade from, before 0.22, under LMCache, or without its rates.
std::optional<SecondaryTierFigures> secondary_tier_figures(const Scenario& s, double block_bytes);

// What the secondary tier did over a run (one engine).
struct SecondaryTierCounts {
  std::int64_t hit_tokens = 0;               // prompt tokens loaded that came from the secondary
  std::int64_t blocks_written = 0;           // blocks written through
  std::int64_t blocks_read = 0;              // blocks promoted into the CPU tier
  double bytes_written = 0, bytes_read = 0;  // all ranks
  double write_busy_s = 0, read_busy_s = 0;  // the disk's write and read queues
  std::int64_t peak_blocks = 0, evictions = 0;
};

class SecondaryTier {
 public:
  SecondaryTier(const SecondaryTierFigures& figures, double block_bytes);

  bool ready(std::uint64_t hash) const { return store_.ready(hash); }
  bool side_by_side() const { return figures_.side_by_side; }
  // Changes whenever a block becomes ready or leaves the tier.
  std::uint64_t version() const { return store_.version(); }

  // Write-through of blocks whose CPU-tier store completed at `now`: those absent from the tier are
  // reserved (evicting by policy) and queued on the write link. Returns the job's id, or -1 when
  // nothing needs writing; done_at() is when it ends.
  std::int64_t start_write(SimTime now, const std::vector<std::uint64_t>& hashes, std::int64_t request = -1);
  const std::vector<std::uint64_t>& written(std::int64_t job) const;
  std::int64_t writer(std::int64_t job) const { return jobs_[job].request; }  // side by side: its request
  SimDuration write_backlog(SimTime now) const { return write_.free_at() - now; }
  SimTime done_at(std::int64_t job) const { return jobs_[job].done; }
  void finish_write(std::int64_t job);  // ready for lookups; the job's slot is free

  // A promotion reads these blocks (pinned while it runs); returns when the read ends.
  SimTime start_read(SimTime now, const std::vector<std::uint64_t>& hashes);
  void finish_read(const std::vector<std::uint64_t>& hashes);

  void add_hit_tokens(std::int64_t tokens) { counts_.hit_tokens += tokens; }
  SecondaryTierCounts counts() const;
  // Empty when consistent; else the text of the CheckFailed error ServingEngine throws.
  std::string check() const;

 private:
  struct WriteJob {
    std::vector<std::uint64_t> hashes;
    SimTime done{};
    std::int64_t request = -1;
  };
  SecondaryTierFigures figures_;
  double block_bytes_;  // one block across all ranks
  OffloadTier store_;
  Link read_, write_;
  JobSlots<WriteJob> jobs_;
  SecondaryTierCounts counts_;
};

}  // namespace kvb
