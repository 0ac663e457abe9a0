#pragma once
// Why a simulated CPU tier recommendation came out as it did, as typed facts: advise/ fills them
// (the tier advisor and the trace's candidates), output/size/tier_advice_text words them once, for the
// text and the JSON alike (the sizing_warnings pattern). Shares are fractions, gains are in the
// named metric's own sign (larger is better), sizes are GiB across ranks.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fleet/fleet_spec.hpp"
#include "size/tier_terms.hpp"

namespace kvb {

// --- the verdict: one line, why this size or why none ---

// Where the rule's sessions kept warm come from: --concurrency, or twice the full-length sessions
// the GPU pool holds (`gpu_sessions`).
struct SessionsSource {
  bool given = false;
  double gpu_sessions = 0;
  bool operator==(const SessionsSource&) const = default;
};
// size --workload could not simulate its traffic (no request of max-model-len fits the GPU KV
// cache, or the weights do not fit): the rule's size stands.
struct NotSimulatedWorkload {
  std::string workload;
  bool weights_fit = true;
  bool operator==(const NotSimulatedWorkload&) const = default;
};
// The rule: `sessions` full-length sessions kept warm, no traffic simulated.
struct RuleVerdict {
  int sessions = 0;
  SessionsSource source;
  std::optional<NotSimulatedWorkload> not_simulated;
  bool operator==(const RuleVerdict&) const = default;
};

// The knee pays: `gib` reaches `share_of_best` of the best gain, taken at `best_gib`.
struct KneeVerdict {
  double gib = 0, share_of_best = 0, best_gain = 0, best_gib = 0, cpu_hit_rate = 0;
  TierObjective metric = TierObjective::kThroughput;
  bool operator==(const KneeVerdict&) const = default;
};
// The host-DRAM cap leaves no whole GiB for a tier.
struct NoRoomVerdict {
  double cap_gib = 0;
  bool operator==(const NoRoomVerdict&) const = default;
};
// A size loses more output throughput than the objective tolerates; `mechanism` is the cost
// (sim/tier_costs.hpp's name) that added the most step time, empty when none did.
struct TierCostsVerdict {
  double gib = 0, loss = 0, mechanism_share = 0;
  std::string mechanism;
  bool operator==(const TierCostsVerdict&) const = default;
};
// No prompt shares a prefix: nothing to serve from a tier (the largest size's figures).
struct NoReuseVerdict {
  double gpu_hit_rate = 0, cpu_hit_rate = 0, gib = 0;
  bool operator==(const NoReuseVerdict&) const = default;
};
// The reuse fits the GPU prefix cache already.
struct ReuseFitsGpuVerdict {
  double gpu_hit_rate = 0, cpu_hit_rate = 0, gib = 0;
  bool operator==(const ReuseFitsGpuVerdict&) const = default;
};
// Balanced: every size that gains in one metric loses in the other.
struct TradedOffVerdict {
  double gib = 0, ttft_gain = 0, throughput_gain = 0;
  bool operator==(const TradedOffVerdict&) const = default;
};
// Throughput objective on an engine the arrivals leave idle.
struct ArrivalBoundVerdict {
  double engine_busy_share = 0, cpu_hit_rate = 0, gib = 0;
  bool operator==(const ArrivalBoundVerdict&) const = default;
};
// Reloads keep the host link busy: no faster than recomputing.
struct LinkBoundVerdict {
  double cpu_hit_rate = 0, h2d_utilization = 0, gib = 0;
  bool operator==(const LinkBoundVerdict&) const = default;
};
// The prefill saved is a small share of decode-dominated work.
struct ComputeBoundVerdict {
  double cpu_hit_rate = 0, gib = 0;
  bool operator==(const ComputeBoundVerdict&) const = default;
};
// The best size's gain (`gain` +/- `spread` over the draws, in `metric`) pays by the objective's
// threshold, but less its spread it does not exceed the simulation's stated error for this class of
// server (`model_error`): it cannot be told from the model's error.
struct WithinModelErrorVerdict {
  double gib = 0, gain = 0, spread = 0, model_error = 0, cpu_hit_rate = 0;
  TierObjective metric = TierObjective::kThroughput;
  bool operator==(const WithinModelErrorVerdict&) const = default;
};
// A signal stopped the sweep during the `gib` tier's simulation after `sizes` sizes.
struct InterruptedVerdict {
  std::string signal;
  int gib = 0;
  std::size_t sizes = 0;
  bool operator==(const InterruptedVerdict&) const = default;
};
// A verdict read from a document written before verdicts were facts (its "why"), kept as worded.
struct WordedVerdict {
  std::string text;
  bool operator==(const WordedVerdict&) const = default;
};
using TierVerdict =
    std::variant<RuleVerdict, KneeVerdict, NoRoomVerdict, TierCostsVerdict, NoReuseVerdict,
                 ReuseFitsGpuVerdict, TradedOffVerdict, ArrivalBoundVerdict, LinkBoundVerdict,
                 ComputeBoundVerdict, WithinModelErrorVerdict, InterruptedVerdict, WordedVerdict>;

// --- the reasoning: the steps that led there, in order ---

// size --trace on a fleet: the candidates come from the trace split as `router` would send it
// (least-loaded's split needs service times: round-robin's stands in).
struct FleetCandidatesStep {
  int replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  bool least_loaded_stand_in = false;
  bool operator==(const FleetCandidatesStep&) const = default;
};
// size --trace: the trace's miss-ratio curve (computed, an LRU prefix cache), at three sizes.
struct TraceCurveStep {
  long long requests = 0;
  double unbounded_hit_rate = 0, cap_gib = 0, hit_rate_at_cap = 0, floor_gib = 0, hit_rate_at_floor = 0;
  bool operator==(const TraceCurveStep&) const = default;
};
// Why a candidate size was picked from the curve: vLLM's floor + 1, a share of the cap's hit rate,
// or the cap while the curve still rises.
enum class CandidateKind { kAboveFloor, kShareOfCap, kCapStillRising };
struct TraceCandidate {
  int gib = 0;
  CandidateKind kind = CandidateKind::kAboveFloor;
  double share = 0;     // kShareOfCap: of the cap's hit rate
  double hit_rate = 0;  // the curve's prefix hit rate at gib
  bool operator==(const TraceCandidate&) const = default;
};
struct TraceCandidatesStep {
  std::vector<TraceCandidate> picked;  // in the order picked
  bool operator==(const TraceCandidatesStep&) const = default;
};
// Without a tier the median request waits this long: the traffic is more than one server takes.
struct OverloadedStep {
  double ttft_p50_s = 0;
  bool trace = false;  // the way out: --trace-sample, else a lower rate or more servers
  bool operator==(const OverloadedStep&) const = default;
};
// The server sits on a knee of its GPU KV pool: without a tier, a pool `pool_step` smaller or larger
// changes output tok/s by `smaller` / `larger` (fractions), more than the tier's modelled costs move
// it; the answer then depends on pool differences kvbench cannot resolve. No `smaller` where that
// pool cannot hold max-model-len (vLLM would not start).
struct PoolKneeStep {
  double pool_step = 0.1;
  std::int64_t gpu_blocks = 0;
  std::optional<double> smaller;
  double larger = 0;
  bool operator==(const PoolKneeStep&) const = default;
};
// What was simulated; `judged_on` for balanced (the metric that moved most).
struct SimulatedStep {
  std::size_t sizes = 0;
  std::string workload;
  long long requests = 0;
  int draws = 1;
  double cap_gib = 0;
  std::optional<TierObjective> judged_on;
  bool operator==(const SimulatedStep&) const = default;
};
// Nothing pays: the best gain, and whether it was below the rule that pays, came without CPU hits,
// or paid by the rule but within the simulation's stated error `model_error` for this server class.
struct NoTierStep {
  double best_gain = 0;
  TierObjective metric = TierObjective::kThroughput, objective = TierObjective::kBalanced;
  bool without_cpu_hits = false;
  std::optional<double> model_error;
  bool operator==(const NoTierStep&) const = default;
};
// Another objective's knee on the same curve.
struct OtherObjectiveStep {
  TierObjective objective = TierObjective::kThroughput, metric = TierObjective::kThroughput;
  double gib = 0, gain = 0;
  bool operator==(const OtherObjectiveStep&) const = default;
};
// The size where the tier makes things worst (below kWorseGain), with the link's load.
struct WorsePointStep {
  double gib = 0, gain = 0, h2d_utilization = 0, d2h_utilization = 0;
  TierObjective metric = TierObjective::kThroughput;
  bool operator==(const WorsePointStep&) const = default;
};
// The knee sat at or below vLLM's floor: raised above it.
struct RaisedToFloorStep {
  double knee_gib = 0, floor_gib = 0, raised_gib = 0;
  bool operator==(const RaisedToFloorStep&) const = default;
};
// The gain still rises at the host-DRAM cap.
struct StillRisingStep {
  double cap_gib = 0;
  bool operator==(const StillRisingStep&) const = default;
};
// The recommendation and what it changes against no tier.
struct RecommendStep {
  double gib = 0, gain = 0, gain_spread = 0;
  TierObjective metric = TierObjective::kThroughput;
  int seeds = 1;
  TierBound bound = TierBound::kKnee;
  double ttft_p99_none_s = 0, ttft_p99_s = 0, output_tokens_per_s_none = 0, output_tokens_per_s = 0;
  double cpu_hit_rate = 0;
  std::optional<double> goodput_none_rps, goodput_rps;  // objective goodput
  // The server's class was never scored against real vLLM: the gain cannot be told from the
  // model's error (ExpectedError says which classes were).
  bool unscored = false;
  bool operator==(const RecommendStep&) const = default;
};
// A step read from a document written before steps were facts (a line of its "reasoning").
struct WordedStep {
  std::string text;
  bool operator==(const WordedStep&) const = default;
};
using AdviceStep = std::variant<FleetCandidatesStep, TraceCurveStep, TraceCandidatesStep, OverloadedStep,
                                SimulatedStep, NoTierStep, OtherObjectiveStep, WorsePointStep,
                                RaisedToFloorStep, StillRisingStep, RecommendStep, PoolKneeStep, WordedStep>;

}  // namespace kvb
