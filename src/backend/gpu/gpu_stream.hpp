#pragma once
// A stream with the two events a transfer is timed between, and the time between two recorded
// events. Included by gpu_backend.cpp; internal linkage, so each runtime's object holds its own copy.
#include "backend/gpu/gpu_check.hpp"
#include "gpu_alias.hpp"

namespace kvb {
namespace {

// Seconds from event `a` to event `b` (both recorded, on any streams of one device).
double elapsed_between(gpuEvent_t a, gpuEvent_t b) {
  float ms = 0;
  check(gpuEventElapsedTime(&ms, a, b), "event timing");
  return static_cast<double>(ms) / 1e3;
}

struct StreamAndEvents {
  gpuStream_t stream{};
  gpuEvent_t start{};
  gpuEvent_t stop{};
  StreamAndEvents() {
    check(gpuStreamCreateWithFlags(&stream, gpuStreamNonBlocking), "stream creation");
    check(gpuEventCreate(&start), "event creation");
    check(gpuEventCreate(&stop), "event creation");
  }
  ~StreamAndEvents() {
    (void)gpuEventDestroy(start);
    (void)gpuEventDestroy(stop);
    (void)gpuStreamDestroy(stream);
  }
  StreamAndEvents(const StreamAndEvents&) = delete;
  StreamAndEvents& operator=(const StreamAndEvents&) = delete;
  double elapsed_s() const {
    float ms = 0;
    check(gpuEventElapsedTime(&ms, start, stop), "event timing");
    return static_cast<double>(ms) / 1e3;
  }
};

}  // namespace
}  // namespace kvb
