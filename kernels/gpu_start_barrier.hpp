#pragma once
// bidir: both directions must start together, not one submission loop apart (1,000 small copies
// take milliseconds to submit, longer than they take to run). nvbandwidth's technique: a kernel on
// a gate stream spins on a flag in mapped host memory; both copy streams wait on an event recorded
// behind it; the host releases the flag once every copy is submitted. The spin gives up after
// about five seconds and says so, so a flag the GPU never sees fails the case instead of hanging.
// Included by gpu_backend.cpp only (one CUDA/HIP translation unit).
#include <atomic>
#include <vector>

#include "gpu_alias.hpp"
#include "gpu_check.hpp"

namespace kvb {
namespace {

__global__ void spin_until_released(volatile int* flags, long long max_cycles) {
  const long long start = clock64();
  while (flags[0] == 0) {
    if (clock64() - start > max_cycles) {
      flags[1] = 1;  // timed out: the host checks this after the copies
      return;
    }
  }
}

class StartBarrier {
 public:
  StartBarrier() {
    check(gpuHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int), gpuHostAllocMapped), "barrier flag allocation");
    check(gpuHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), flags_, 0), "mapping the barrier flag");
    check(gpuStreamCreateWithFlags(&gate_, gpuStreamNonBlocking), "barrier stream creation");
    check(gpuEventCreate(&opened_), "barrier event creation");
  }
  ~StartBarrier() {
    (void)gpuStreamSynchronize(gate_);
    (void)gpuEventDestroy(opened_);
    (void)gpuStreamDestroy(gate_);
    (void)gpuFreeHost(flags_);
  }
  StartBarrier(const StartBarrier&) = delete;
  StartBarrier& operator=(const StartBarrier&) = delete;

  // Everything enqueued on `streams` after this waits for release().
  void hold(const std::vector<gpuStream_t>& streams) {
    flags_[0] = 0;
    flags_[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    spin_until_released<<<1, 1, 0, gate_>>>(device_flags_, kMaxCycles);
    check(gpuGetLastError(), "launching the start barrier");
    check(gpuEventRecord(opened_, gate_), "barrier event record");
    for (const auto s : streams) check(gpuStreamWaitEvent(s, opened_, 0), "waiting on the start barrier");
  }

  void release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    static_cast<volatile int*>(flags_)[0] = 1;
  }

  // After the streams finished: a barrier that gave up means the directions did not start together.
  void require_released_in_time() {
    check(gpuStreamSynchronize(gate_), "waiting for the start barrier");
    if (static_cast<volatile int*>(flags_)[1] != 0) {
      throw DeviceError("bidir start barrier: the GPU did not see the release flag within about 5 s");
    }
  }

 private:
  static constexpr long long kMaxCycles = 10'000'000'000LL;  // ~5 s at 2 GHz
  int* flags_ = nullptr;
  int* device_flags_ = nullptr;
  gpuStream_t gate_{};
  gpuEvent_t opened_{};
};

}  // namespace
}  // namespace kvb
