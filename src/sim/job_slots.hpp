#pragma once
// Jobs in flight named by a slot that is reused once the job is done, so that the events that end
// a job carry a small integer and memory follows the jobs in flight, not the run.
#include <cstdint>
#include <utility>
#include <vector>

namespace kvb {

template <class Job>
class JobSlots {
 public:
  std::int64_t add(Job job) {
    if (free_.empty()) {
      jobs_.push_back(std::move(job));
      return static_cast<std::int64_t>(jobs_.size()) - 1;
    }
    const auto id = free_.back();
    free_.pop_back();
    jobs_[static_cast<std::size_t>(id)] = std::move(job);
    return id;
  }
  Job& operator[](std::int64_t id) { return jobs_[static_cast<std::size_t>(id)]; }
  const Job& operator[](std::int64_t id) const { return jobs_[static_cast<std::size_t>(id)]; }
  // The slot is free for the next job; the job's storage is released now.
  void done(std::int64_t id) {
    jobs_[static_cast<std::size_t>(id)] = Job{};
    free_.push_back(id);
  }

 private:
  std::vector<Job> jobs_;
  std::vector<std::int64_t> free_;  // finished jobs' slots, reused
};

}  // namespace kvb
