#pragma once
// Summary statistics of timing samples and nvbench's noise-based stopping rule.
#include <cstdint>
#include <functional>
#include <vector>

namespace kvb {

struct Summary {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0, mean = 0, stddev = 0;
  double relative_noise = 0;  // stddev / mean
  std::size_t count = 0;
};

// Linear-interpolated percentiles (the same definition as numpy's default).
Summary summarize(std::vector<double> values);

struct StoppingRule {
  int warmups = 4;
  std::size_t min_samples = 10;
  std::size_t max_samples = 10000;
  double min_seconds = 0.5;    // of timed work
  double max_seconds = 15.0;   // cap, as nvbench
  double target_noise = 0.005; // 0.5% relative standard deviation
};

// One timed run returns the duration of the transfer in seconds.
struct TimedRun {
  double device_s = 0;  // device events (GPU) or steady clock around the copies (host)
  double wall_s = 0;    // host wall time including submission
};

struct RunResult {
  std::vector<TimedRun> runs;
  bool converged = false;  // noise target met before a cap
};

// Warm-ups, then timed runs until: at least min_samples and min_seconds, and noise at or below
// the target; or max_seconds / max_samples reached.
RunResult run_until_stable(const std::function<TimedRun()>& once, const StoppingRule& rule);

}  // namespace kvb
