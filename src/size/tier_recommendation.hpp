#pragma once
// The recommended CPU tier size and how it was reached: from a simulation of the operator's
// traffic (advise/tier_advisor) or, without a workload, from the sizing rule (offload_plan).
// Data only: size/ writes it, advise/ fills the simulated kind, output/ prints it.
#include <string>
#include <utility>
#include <vector>

namespace kvb {

// One simulated tier size of a recommendation's curve. Computed by the simulator, not measured.
struct TierCurvePoint {
  double kv_offloading_size_gib = 0;
  double output_tokens_per_s = 0;
  double ttft_p50_s = 0;
  double ttft_p99_s = 0;
  double cpu_hit_rate = 0;
  double gpu_hit_rate = 0;
  double goodput_rps = 0;  // requests meeting the SLOs per second (objective goodput)
  double h2d_utilization = 0;
  double d2h_utilization = 0;
  double engine_busy_share = 0;  // engine step time / makespan
  double gain = 0;               // in the deciding metric (TierRecommendation::decided_by), vs no tier
};

struct TierRecommendation {
  std::string basis = "rule";         // "simulation" or "rule"
  std::string objective;              // balanced, throughput, ttft-p99, goodput; empty for the rule
  std::string decided_by;             // the metric the gains are in (balanced: the one that moved most)
  double kv_offloading_size_gib = 0;  // 0 = do not offload
  bool pays = true;
  double gain = 0;             // at the recommended size, in the objective
  std::string why;             // one line: why this size (or why none)
  std::string bound;           // what decided: knee, floor, dram-cap, rule, none
  double floor_gib = 0;        // vLLM's floor: the aggregate GPU KV pool, which a smaller tier only mirrors
  double cap_gib = 0;          // the host-DRAM cap
  std::string workload;        // the simulated scenario
  std::string expected_error;  // the simulator against real vLLM servers, for this calibration
  long long requests = 0;      // requests per simulated point (one workload draw for all points)
  std::vector<TierCurvePoint> curve;
  // size --trace: the trace's miss-ratio curve in this server's GiB, (size, prefix hit rate),
  // counted from the trace, not simulated: drawn beside the simulated hit rates.
  std::vector<std::pair<double, double>> trace_curve;
  std::vector<std::string> reasoning;
  // A signal stopped the tier-size sweep during this simulation: the curve holds the sizes before
  // it and no size is recommended (bound "interrupted").
  std::string interrupted_during;
  // Start-up: pinning the tier at every server start (size/pinning_cost.hpp).
  double pin_seconds_low = 0;
  double pin_seconds_high = 0;
  std::string pin_source;
};

}  // namespace kvb
