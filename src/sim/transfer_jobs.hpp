#pragma once
// An engine's copies between the GPU and its CPU tier: the two directions' links and the jobs in
// flight, each named by its slot (reused once the job is done) in the events that end it.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/link_queue.hpp"

namespace kvb {

struct TransferJob {
  std::int64_t request = 0;
  std::vector<std::uint64_t> hashes;
  std::int64_t gpu_hit_blocks = 0;    // loads: blocks that were already on the GPU
  int preemptions = 0;                // stores: the request's preemptions when it was submitted
  std::vector<std::uint64_t> disk{};  // loads: the blocks promoted from the secondary tier, in order
};

class TransferJobs {
 public:
  Link h2d, d2h;

  std::int64_t add(TransferJob job) {
    if (free_.empty()) {
      jobs_.push_back(std::move(job));
      return static_cast<std::int64_t>(jobs_.size()) - 1;
    }
    const auto id = free_.back();
    free_.pop_back();
    jobs_[static_cast<std::size_t>(id)] = std::move(job);
    return id;
  }
  TransferJob& operator[](std::int64_t id) { return jobs_[static_cast<std::size_t>(id)]; }
  void done(std::int64_t id) {  // its slot is free for the next job
    jobs_[static_cast<std::size_t>(id)].hashes = {};
    jobs_[static_cast<std::size_t>(id)].disk = {};
    free_.push_back(id);
  }

 private:
  std::vector<TransferJob> jobs_;
  std::vector<std::int64_t> free_;  // finished jobs' slots, reused
};

}  // namespace kvb
