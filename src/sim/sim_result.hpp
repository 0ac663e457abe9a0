#pragma once
// What one simulation run produced: the metrics every printer shows. Computed from the stated
// models (time, link), never measured; the setup says which models and figures were used.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/fleet_spec.hpp"
#include "sim/tier_costs.hpp"

namespace kvb {

struct LatencySummary {
  std::int64_t count = 0;  // requests with this latency (TPOT needs two or more output tokens)
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};

// One replica of a fleet: the requests the router sent it.
struct ReplicaResult {
  std::int64_t requests = 0;
  std::int64_t prompt_tokens = 0, output_tokens = 0;
  LatencySummary ttft_s;
  double gpu_hit_rate = 0, cpu_hit_rate = 0;  // of its prompt tokens
  std::int64_t preemptions = 0;
  std::int64_t cpu_tier_peak_blocks = 0;
  double kv_occupancy_mean = 0;
  double engine_busy_s = 0;
};

// A secondary tier behind the CPU tier (sim/secondary_tier.hpp): its figures as run and what it did,
// summed over a fleet's replicas (capacity: each replica's).
struct SecondaryTierResult {
  std::int64_t capacity_blocks = 0;
  double read_gbps = 0, write_gbps = 0, latency_us = 0;
  bool rates_stated = true;     // stated by the operator, not measured by kvbench storage
  std::int64_t hit_tokens = 0;  // prompt tokens loaded that came from it (promoted through the CPU tier)
  double hit_rate = 0;          // of prompt tokens
  std::int64_t blocks_written = 0, blocks_read = 0;
  double bytes_written = 0, bytes_read = 0;  // all ranks
  double write_busy_s = 0, read_busy_s = 0;  // its write and read queues' busy time
  std::int64_t peak_blocks = 0, evictions = 0;
};

struct SimResult {
  std::int64_t requests = 0;
  std::int64_t finished = 0;
  // Given up by the client (workload client-timeout) and aborted: counted here, not in `finished`,
  // the latencies or the token figures, as the client counts them.
  std::int64_t timed_out = 0;
  double makespan_s = 0;  // first arrival to last completion
  std::int64_t steps = 0;
  double engine_busy_s = 0;           // sum of step times: below the makespan when arrivals set the pace
  std::int64_t prompt_tokens = 0;     // sum of prompt lengths
  std::int64_t output_tokens = 0;     // sum of generated tokens
  std::int64_t scheduled_tokens = 0;  // tokens the engine processed, recomputation included
  double prompt_tokens_per_s = 0;
  double output_tokens_per_s = 0;
  LatencySummary ttft_s, tpot_s, e2e_s;
  std::int64_t slo_met_requests = 0;  // finished within SimOptions::slo (all of them without one)
  std::int64_t preemptions = 0;
  std::int64_t recomputed_tokens = 0;  // processed again after a preemption
  std::int64_t clipped_prompts = 0;    // first turns clipped to max-model-len (over-length: clip)
  std::int64_t rejected_requests =
      0;                            // trace requests longer than max-model-len, refused as vLLM refuses them
  std::int64_t gpu_hit_tokens = 0;  // prompt tokens found in the GPU prefix cache
  std::int64_t cpu_hit_tokens = 0;  // prompt tokens loaded from the CPU tier
  double gpu_hit_rate = 0;          // of prompt tokens
  double cpu_hit_rate = 0;
  std::int64_t loads = 0, stores = 0;               // transfer jobs
  double h2d_bytes = 0, d2h_bytes = 0;              // all ranks
  double h2d_utilization = 0, d2h_utilization = 0;  // busy time / makespan, per rank's link
  std::int64_t gpu_evictions = 0;                   // cached GPU blocks handed out again
  std::int64_t cpu_evictions = 0;
  std::int64_t cpu_tier_peak_blocks = 0;
  double kv_occupancy_mean = 0;  // time-weighted share of GPU blocks held by requests
  double kv_occupancy_peak = 0;
  std::vector<std::pair<double, double>> kv_occupancy;  // (bin start s, mean share), 50 bins
  // Engine time each tier cost mechanism added (indexed by TierCost), seconds; 0 without a tier.
  std::array<double, kTierCostCount> tier_cost_s{};
  std::optional<SecondaryTierResult> secondary;  // absent without a secondary tier
  // A fleet (replicas > 1): the figures above are the fleet's (sums; link and KV occupancy the
  // replicas' mean), and each replica's own follow; empty for one engine.
  FleetSpec fleet{};
  std::vector<ReplicaResult> replicas;
};

}  // namespace kvb
