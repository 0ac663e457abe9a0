#pragma once
// The simulated tier-size curve of size --workload/--trace: each size's point, the mean of its
// workload draws with each draw's figures kept for the paired gains (tier_objective.hpp).
#include <cstdint>
#include <map>
#include <vector>

#include "perf/calibration.hpp"
#include "sim/simulation_setup.hpp"
#include "sim/simulator.hpp"
#include "size/tier_recommendation.hpp"

namespace kvb {

// A secondary tier simulated behind one CPU tier size (size --secondary-tier-size): the point, and
// the tier's figures as the draws' means (peak_blocks: the most any draw held).
struct SecondaryRun {
  TierCurvePoint point;
  double hit_rate = 0, bytes_written = 0, bytes_read = 0;
  std::int64_t peak_blocks = 0;  // a fleet: its replicas' peaks summed (each replica has the capacity)
  int replicas = 1;
};

// Simulates tier sizes on one prepared setup, each over `draws` workload draws (seeds seed,
// seed + 1, ...); block size and max-model-len do not change with the tier, only the CPU tier
// differs, and draw k is the same traffic at every size. Every (size, draw) is an independent
// simulation: options.jobs of them run at once (core/worker_pool), and the curve is the same at
// any job count.
class TierCurve {
 public:
  TierCurve(SimulationSetup base, SimOptions options, int draws)
      : base_(std::move(base)), options_(options), draws_(draws < 1 ? 1 : draws) {}

  // Simulates the sizes (GiB, 0: no tier) not simulated yet, all draws of all of them at once. On a
  // signal the sizes whose draws all finished are kept, and Interrupted is rethrown.
  void simulate(const std::vector<int>& gibs);
  // The point at `gib` GiB (0: no tier), simulated on first use.
  const TierCurvePoint& at(int gib);
  // The `gib` GiB CPU tier with each of `tiers` behind it, over the same draws as at(gib): the same
  // traffic, only the secondary tier differs.
  std::vector<SecondaryRun> with_secondary(int gib, const std::vector<SecondaryTierFigures>& tiers) const;
  double cpu_block_bytes() const { return base_.cpu_block_bytes; }
  // Mean output tok/s without a tier on a GPU pool `share` times this one, over the same draws,
  // for each share.
  std::vector<double> no_tier_throughput_with_pools(const std::vector<double>& shares) const;
  std::int64_t gpu_blocks() const { return base_.gpu_blocks; }
  // Whether a pool `share` times this one still holds max-model-len (else vLLM would not start).
  bool pool_holds_max_model_len(double share) const {
    return share * static_cast<double>(base_.gpu_blocks) * base_.server.block_size >=
           static_cast<double>(base_.server.max_model_len);
  }

  std::vector<TierCurvePoint> points() const {
    std::vector<TierCurvePoint> out;
    for (const auto& [gib, p] : points_) out.push_back(p);  // std::map: ascending sizes
    return out;
  }

 private:
  // The setup of draw `draw` at `gib` GiB (0: no tier).
  SimulationSetup setup_for(int gib, std::size_t draw) const;

  SimulationSetup base_;
  SimOptions options_;
  int draws_ = 1;
  std::map<int, TierCurvePoint> points_;
  std::int64_t requests_ = 0;
  int running_gib_ = 0;

 public:
  int running_gib() const { return running_gib_; }
  std::int64_t requests() const { return requests_; }  // per point: the draw (or trace) is the same for all
  ExpectedError expected_error() const { return expected_error_for(base_); }
};

}  // namespace kvb
