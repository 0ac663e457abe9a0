#pragma once
// --with-compute on the host backend: a compute-bound load on every hardware thread (chains of
// dependent FMAs that touch no memory), counted in fixed chunks, so its rate alone and its rate
// while copies run can be compared: the host analogue of an FMA kernel filling every SM.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace kvb {

class HostComputeLoad {
 public:
  explicit HostComputeLoad(int threads);
  ~HostComputeLoad();  // stops and joins the threads
  HostComputeLoad(const HostComputeLoad&) = delete;
  HostComputeLoad& operator=(const HostComputeLoad&) = delete;

  // Chunks of work finished so far, across all threads.
  std::uint64_t chunks() const { return chunks_.load(std::memory_order_relaxed); }
  int threads() const { return static_cast<int>(workers_.size()); }

  // Chunks per second over a window of about `seconds` in which the caller does nothing else.
  double rate_over(double seconds) const;

 private:
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> chunks_{0};
  std::vector<std::thread> workers_;
};

}  // namespace kvb
