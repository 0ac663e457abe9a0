#pragma once
// An engine's copies between the GPU and its CPU tier: the two directions' links and the jobs in
// flight, each named by its slot (reused once the job is done) in the events that end it.
#include <cstdint>
#include <vector>

#include "sim/job_slots.hpp"
#include "sim/link_queue.hpp"

namespace kvb {

struct TransferJob {
  std::int64_t request = 0;
  std::vector<std::uint64_t> hashes;
  std::int64_t gpu_hit_blocks = 0;    // loads: blocks that were already on the GPU
  int preemptions = 0;                // stores: the request's preemptions when it was submitted
  std::vector<std::uint64_t> disk{};  // loads: the blocks promoted from the secondary tier, in order
  bool direct = false;                // loads: read from a side-by-side file tier straight to the GPU
};

// The two links, and the jobs in flight on them (sim/job_slots.hpp).
struct TransferJobs : JobSlots<TransferJob> {
  Link h2d, d2h;
};

}  // namespace kvb
