#pragma once
// The terms a CPU tier recommendation is stated in: what it is judged by, what pays, where the
// size came from and what bounded it. Data only; the spellings live in tier_recommendation.cpp.
#include <string>

namespace kvb {

// What a CPU tier size is judged by (`size --objective`): output throughput, TTFT p99, or
// goodput (requests meeting --slo-ttft / --slo-tpot per second); balanced weighs the first two.
enum class TierObjective { kBalanced, kThroughput, kTtftP99, kGoodput };
std::string to_string(TierObjective o);
// UsageError naming `what` and the accepted values.
TierObjective parse_tier_objective(const std::string& text, const std::string& what);

// What pays. The default (balanced): a size pays when TTFT p99 falls by at least 10% or output
// throughput rises by at least 2%, and neither gets worse by more than 2%. A named objective pays
// at a 2% gain in it alone, and, like balanced, never at a size that makes throughput or TTFT p99
// more than 2% worse (a tier that costs the server is never the answer). Below 2% a gain does not cover
// pinning the tier and its store traffic.
inline constexpr double kPaysGain = 0.02;
inline constexpr double kBalancedTtftGain = 0.10;
inline constexpr double kBalancedMaxLoss = 0.02;

// Where the size came from: the operator's traffic simulated, or the sessions-kept-warm rule.
enum class RecommendationBasis { kRule, kSimulation };
std::string to_string(RecommendationBasis b);
RecommendationBasis parse_recommendation_basis(const std::string& text, const std::string& what);

// What decided the size: the rule's sessions, the simulated curve's knee, vLLM's floor (the GPU
// pool), the host-DRAM cap, nothing paid (none), or a signal stopped the sweep (interrupted).
enum class TierBound { kRule, kKnee, kFloor, kDramCap, kNone, kInterrupted };
std::string to_string(TierBound b);
TierBound parse_tier_bound(const std::string& text, const std::string& what);

}  // namespace kvb
