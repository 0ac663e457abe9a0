#include "backend/host/host_compute_load.hpp"

#include <chrono>

namespace kvb {
namespace {

// One chunk: 8 independent chains of 4096 dependent FMAs (about 33k FLOPs per chain pair).
double fma_chunk(double seed) {
  double x[8];
  for (int k = 0; k < 8; ++k) x[k] = seed + k;
  for (int i = 0; i < 4096; ++i) {
    for (double& v : x) v = v * 0.9999999 + 1e-7;
  }
  double s = 0;
  for (const double v : x) s += v;
  return s;
}

}  // namespace

HostComputeLoad::HostComputeLoad(int threads) {
  for (int t = 0; t < threads; ++t) {
    workers_.emplace_back([this, t] {
      volatile double sink = 0;  // keeps the chains from being optimised away
      double seed = t;
      while (!stop_.load(std::memory_order_relaxed)) {
        seed = fma_chunk(seed) * 1e-9;
        sink = seed;
        chunks_.fetch_add(1, std::memory_order_relaxed);
      }
      (void)sink;
    });
  }
}

HostComputeLoad::~HostComputeLoad() {
  stop_.store(true);
  for (auto& w : workers_) w.join();
}

double HostComputeLoad::rate_over(double seconds) const {
  using Clock = std::chrono::steady_clock;
  const auto c0 = chunks();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto c1 = chunks();
  const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
  return dt > 0 ? static_cast<double>(c1 - c0) / dt : 0.0;
}

}  // namespace kvb
