#pragma once
// --with-compute on a GPU: an FMA-bound kernel of many waves (16 waves of 2 CTAs of 256 threads
// per SM), launched back to back on its own stream by a host thread while the copies run. Many
// short CTAs, as a model's GEMMs and attention launch, so SMs held by copy CTAs cost the load
// their share of the GPU; a single wave (the first version) let any held SM stretch the whole
// launch (on the H100, 4 copy CTAs slowed it 1.47x, as much as 32 did). Each
// launch is bracketed by events; the slowdown is the median kernel time during the copies over
// the median alone. Copy kernels compete with it for SMs; copy-engine DMA should barely touch it
// (vLLM's finding). Included by gpu_backend.cpp only (one CUDA/HIP translation unit).
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "backend/gpu/gpu_check.hpp"
#include "dma/statistics.hpp"
#include "gpu_alias.hpp"
#include "gpu_kernels.hpp"

namespace kvb {
// Internal linkage: the CUDA and the HIP object both hold a copy.
namespace {

class GpuComputeLoad {
 public:
  GpuComputeLoad(int device, int sm_count) : device_(device), grid_(kWaves * 2 * sm_count) {
    check(gpuStreamCreateWithFlags(&stream_, gpuStreamNonBlocking), "compute stream creation");
    check(gpuMalloc(reinterpret_cast<void**>(&sink_),
                    static_cast<std::size_t>(grid_) * kThreads * sizeof(float)),
          "compute sink allocation");
    // About 2 ms per launch (~0.1 ms per CTA): long enough to time with events, short enough to
    // sample often.
    const double t = time_launches(1024, 3);
    iterations_ = std::max(256, static_cast<int>(1024 * 2e-3 / std::max(t, 1e-7)));
  }
  ~GpuComputeLoad() {
    stop_launching();
    (void)gpuFree(sink_);
    (void)gpuStreamDestroy(stream_);
  }
  GpuComputeLoad(const GpuComputeLoad&) = delete;
  GpuComputeLoad& operator=(const GpuComputeLoad&) = delete;

  // Median seconds per launch with nothing else running.
  double alone_seconds() { return time_launches(iterations_, 20); }

  // Keeps the stream fed from a host thread until stop(), a few launches ahead.
  void start() {
    durations_.clear();
    stop_.store(false);
    launcher_ = std::thread([this] { launch_loop(); });
  }

  // Stops, waits for the launches in flight, and returns the median seconds per launch of those
  // that ran while the copies did (the first and last are dropped: they may overlap the edges).
  double stop() {
    stop_launching();
    if (!error_.empty()) throw DeviceError(error_);
    std::vector<double> d = durations_;
    if (d.size() > 2) d = std::vector<double>(d.begin() + 1, d.end() - 1);
    return d.empty() ? 0.0 : summarize(d).median;
  }

  std::string description() const {
    return std::to_string(grid_) + " CTAs (" + std::to_string(kWaves) + " waves) x " +
           std::to_string(kThreads) + " threads of dependent FMAs (" + std::to_string(iterations_) +
           " per thread per launch)";
  }

 private:
  static constexpr int kThreads = 256;
  static constexpr int kWaves = 16;
  static constexpr std::size_t kAhead = 4;

  struct EventPair {
    gpuEvent_t start{}, stop{};
  };

  double time_launches(int iterations, int n) {
    std::vector<double> d;
    EventPair e = make_pair_events();
    for (int i = 0; i < n; ++i) {
      check(gpuEventRecord(e.start, stream_), "event record");
      compute_load_kernel<<<grid_, kThreads, 0, stream_>>>(sink_, iterations);
      check(gpuGetLastError(), "launching the compute kernel");
      check(gpuEventRecord(e.stop, stream_), "event record");
      check(gpuStreamSynchronize(stream_), "waiting for the compute kernel");
      float ms = 0;
      check(gpuEventElapsedTime(&ms, e.start, e.stop), "event timing");
      d.push_back(static_cast<double>(ms) / 1e3);
    }
    destroy(e);
    return summarize(d).median;
  }

  EventPair make_pair_events() {
    EventPair e;
    check(gpuEventCreate(&e.start), "event creation");
    check(gpuEventCreate(&e.stop), "event creation");
    return e;
  }
  static void destroy(EventPair& e) {
    (void)gpuEventDestroy(e.start);
    (void)gpuEventDestroy(e.stop);
  }

  void launch_loop() {
    try {
      check(gpuSetDevice(device_), "selecting the device for the compute load");
      std::deque<EventPair> in_flight;
      const auto retire = [&] {
        EventPair e = in_flight.front();
        in_flight.pop_front();
        check(gpuEventSynchronize(e.stop), "waiting for a compute launch");
        float ms = 0;
        check(gpuEventElapsedTime(&ms, e.start, e.stop), "event timing");
        durations_.push_back(static_cast<double>(ms) / 1e3);
        destroy(e);
      };
      while (!stop_.load()) {
        if (in_flight.size() >= kAhead) retire();
        EventPair e = make_pair_events();
        check(gpuEventRecord(e.start, stream_), "event record");
        compute_load_kernel<<<grid_, kThreads, 0, stream_>>>(sink_, iterations_);
        check(gpuGetLastError(), "launching the compute kernel");
        check(gpuEventRecord(e.stop, stream_), "event record");
        in_flight.push_back(e);
      }
      while (!in_flight.empty()) retire();
    } catch (const std::exception& ex) {
      error_ = ex.what();
    }
  }

  void stop_launching() {
    stop_.store(true);
    if (launcher_.joinable()) launcher_.join();
  }

  int device_;
  int grid_;
  int iterations_ = 4096;
  float* sink_ = nullptr;
  gpuStream_t stream_{};
  std::atomic<bool> stop_{true};
  std::thread launcher_;
  std::vector<double> durations_;
  std::string error_;
};

}  // namespace
}  // namespace kvb
