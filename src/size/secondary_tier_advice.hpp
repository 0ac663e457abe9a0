#pragma once
// size --workload/--trace with --secondary-tier-size: whether a secondary tier (vLLM's tiering, a
// disk or file system behind the CPU tier) pays for the traffic behind the recommended CPU tier, as
// facts. advise/secondary_advisor fills them from simulations of that CPU tier with and without the
// secondary on the same draws; output/size/secondary_advice_text words them for the text and the JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "size/tier_terms.hpp"

namespace kvb {

// The verdict: the tier pays, or why it does not.
enum class SecondaryVerdict {
  kPays,
  kNoCpuTier,                // no CPU tier is recommended: vLLM's tiering cascades from one
  kWorkingSetInCpu,          // (almost) no prompt tokens came from it: the CPU tier holds the working set
  kWithinModelError,         // its gain pays by the objective's rule, but not beyond the stated error
  kDiskSlowerThanRecompute,  // reading a prefix from the disk takes longer than recomputing it
  kCosts,                    // it makes the server worse
  kBelowThreshold,           // its gain is below what pays for the objective
  kInterrupted,              // a signal stopped its simulations
};
std::string to_string(SecondaryVerdict v);
std::optional<SecondaryVerdict> secondary_verdict_from_name(const std::string& name);

// Where the recommended capacity comes from: the smallest size on the simulated ladder that
// reaches 95% of the best gain, or the most the tier held at that size (less: it never filled).
enum class SecondaryCapacityBasis { kLadder, kPeakHeld };
std::string to_string(SecondaryCapacityBasis b);
std::optional<SecondaryCapacityBasis> secondary_basis_from_name(const std::string& name);

// One simulated secondary capacity behind the recommended CPU tier; draws' means (peak: the most).
struct SecondaryLadderPoint {
  double gib = 0;  // its capacity, GiB across ranks
  double output_tokens_per_s = 0, ttft_p99_s = 0;
  double hit_rate = 0;                       // share of prompt tokens promoted from it
  double cpu_hit_rate = 0;                   // share of prompt tokens from the CPU tier
  double gain = 0, gain_spread = 0;          // in `metric`, against the CPU tier alone
  double bytes_written = 0, bytes_read = 0;  // per run, all ranks
  double peak_gib = 0;                       // the most it held in any draw
};

// size --trace: the stated secondary tier behind the recommended CPU tier on the trace's two-level
// miss-ratio curve (trace/tier_levels): each tier's share of the trace's prompt tokens, counted on
// one LRU stack, not simulated.
struct SecondaryCurveShares {
  double gpu = 0, cpu = 0, secondary = 0;
};

struct SecondaryTierAdvice {
  SecondaryVerdict verdict = SecondaryVerdict::kNoCpuTier;
  double stated_gib = 0;  // --secondary-tier-size: the top of the ladder
  double cpu_gib = 0;     // the CPU tier it sits behind (the recommendation)
  double read_gbps = 0, write_gbps = 0, latency_us = 0;
  bool rates_stated = true;  // stated, not measured by kvbench storage (--storage-profile)
  TierObjective metric = TierObjective::kThroughput;  // what the gains are in
  double pays_gain = kPaysGain;
  // At the best ladder size: its gain (+/- spread over the draws) and the simulation's stated error
  // for `metric` on this server's class (none: the class was never scored).
  double gain = 0, gain_spread = 0;
  std::optional<double> model_error;
  double hit_rate = 0;         // at the recommended size (pays), else at the best
  double recommended_gib = 0;  // 0: no secondary tier
  SecondaryCapacityBasis basis = SecondaryCapacityBasis::kLadder;
  double ladder_gib = 0;  // the ladder size it was read at (kPeakHeld: the most held there)
  // A fleet (size --replicas): each replica has the capacity; peak_gib is the replicas' sum, so the
  // capacity is never read off the peak.
  int replicas = 1;
  double cpu_output_tokens_per_s = 0, cpu_ttft_p99_s = 0;  // the CPU tier alone
  std::vector<SecondaryLadderPoint> ladder;
  // A max-model-len prefix read from the disk and loaded to the GPU, against its recomputation.
  std::int64_t prefix_tokens = 0;
  double disk_read_s = 0, reload_s = 0, recompute_s = 0;
  // size --trace on one engine: what the trace's curve gives the stated size (none: a workload, a fleet).
  std::optional<SecondaryCurveShares> trace_curve;

  bool pays() const { return verdict == SecondaryVerdict::kPays; }
};

}  // namespace kvb
