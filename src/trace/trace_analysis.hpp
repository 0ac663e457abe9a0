#pragma once
// `kvbench trace`: what a recorded trace holds and what a prefix cache of each size would serve,
// in one streaming pass (memory grows with the distinct blocks, not the requests).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_spec.hpp"
#include "trace/miss_ratio.hpp"
#include "trace/tier_levels.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

// Token-length distribution: mean exact, percentiles from a log-binned histogram (64 bins per
// doubling: within 1.1% of the exact value).
struct LengthSummary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

// One replica's share of the trace under the fleet's router (trace/fleet_routing.hpp).
struct ReplicaTraceShare {
  std::int64_t requests = 0;
  double prompt_tokens = 0;
  double unbounded_prefix_hit_rate = 0;
  std::vector<MissRatioPoint> curve;  // its own cache at the fleet curve's capacities
};

struct TraceAnalysis {
  std::string path;
  TraceFormat format = TraceFormat::kMooncake;
  TraceOptions options;
  std::int64_t requests = 0, lines = 0, skipped_by_sample = 0;
  std::int64_t failed_requests = 0;      // a client's records of failed requests (AIPerf), left out
  VllmLogFacts vllm_log;                 // a vLLM request log: what the reader took as a bound, left out
  double duration_s = 0, mean_rate = 0;  // requests per second over the trace
  double median_minute_rate = 0, peak_minute_rate = 0;  // per-minute arrival counts, as req/s
  LengthSummary prompt, output;
  std::int64_t distinct_blocks = 0;
  double unbounded_prefix_hit_rate = 0;  // 0 where the format records no reuse
  bool reuse_recorded = true;
  std::vector<MissRatioPoint> curve;
  HitCurve hits;  // the exact curve `curve` samples (a document read back has none)
  // trace --secondary-tier-size: the GPU pool, CPU tier and secondary tier's shares at the curve's
  // capacities (trace/tier_levels; absent without the flag).
  std::optional<TwoLevelCurve> two_level;
  // --replicas: the trace split by the router; each replica's cache of `blocks` (fleet_curve: the
  // replicas' prompt-token-weighted hit rate when each has that cache). Empty for one engine.
  FleetSpec fleet{};
  std::vector<ReplicaTraceShare> replicas;
  std::vector<MissRatioPoint> fleet_curve;
  // SIGINT/SIGTERM stopped the pass: what was read before it is what the figures cover.
  bool interrupted = false;
};

// `curve_points`: about how many capacities the curve samples (geometric; each point exact).
// A signal (core/interrupt) stops the pass at the next request or while a pipe waits for data:
// the analysis covers what was read and says `interrupted`. One that arrives before the first
// request is read throws Interrupted.
// `fleet`: more than one replica splits the trace as its router would (UsageError for a router
// that needs service times).
// `each`, where given, sees every request counted (kvbench trace --write-jsonl).
TraceAnalysis analyze_trace(const std::string& path, const TraceOptions& options, int curve_points = 48,
                            const FleetSpec& fleet = {},
                            const std::function<void(const TraceRequest&)>& each = {});

}  // namespace kvb
