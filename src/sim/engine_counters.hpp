#pragma once
// What one engine counts over a run (sim/serving_engine.hpp): steps, tokens by where they came
// from, the CPU tier's peak, each tier mechanism's seconds, and the GPU pool's occupancy over time.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/request.hpp"
#include "sim/sim_time.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {

struct EngineCounters {
  std::int64_t steps = 0;  // steps ended
  SimDuration busy{};      // sum of step times: the engine's work
  std::int64_t scheduled_tokens = 0, recomputed_tokens = 0, gpu_hit_tokens = 0, cpu_hit_tokens = 0;
  std::int64_t cpu_peak_blocks = 0;
  std::array<double, kTierCostCount> tier_cost_s{};  // what each mechanism added to the steps

  // Tokens [from, to) of `r` became known to the GPU: computed (a repeat counts as recomputed),
  // loaded from the CPU tier, or found in the GPU prefix cache; only past r's high water counts.
  void note_progress(SimRequest& r, std::int64_t from, std::int64_t to, bool computed, bool from_cpu) {
    const auto fresh = std::max<std::int64_t>(0, to - std::max(from, r.high_water));
    const auto repeat = (to - from) - fresh;
    if (computed) {
      recomputed_tokens += repeat;
    } else if (from_cpu) {
      cpu_hit_tokens += fresh;
    } else {
      gpu_hit_tokens += fresh;
    }
    r.high_water = std::max(r.high_water, to);
  }
};

// The GPU pool's used blocks as a step function of time: its integral (block-seconds), its peak
// and its samples (time, used blocks). Past kSamples, adjacent pairs merge into their
// time-weighted mean, so the integral is kept and memory stays bounded (engine_counters.cpp).
using OccupancyTrace = std::vector<std::pair<SimTime, double>>;
class OccupancySampler {
 public:
  static constexpr std::size_t kSamples = std::size_t{1} << 16;
  void start(SimTime now) { last_time_ = now; }
  void sample(SimTime now, std::int64_t used_blocks);
  double integral() const { return integral_; }
  double peak() const { return peak_; }
  const OccupancyTrace& trace() const { return trace_; }

 private:
  void halve();
  double integral_ = 0, peak_ = 0;
  SimTime last_time_{};
  std::int64_t last_used_ = 0;
  OccupancyTrace trace_;
};

}  // namespace kvb
