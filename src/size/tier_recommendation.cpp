#include "size/tier_recommendation.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/errors.hpp"

namespace kvb {

namespace {

// One table per enum: the spelling in flags, JSON and text, so parse and to_string cannot drift.
constexpr std::array<std::pair<TierObjective, const char*>, 4> kObjectives{{
    {TierObjective::kBalanced, "balanced"},
    {TierObjective::kThroughput, "throughput"},
    {TierObjective::kTtftP99, "ttft-p99"},
    {TierObjective::kGoodput, "goodput"},
}};
constexpr std::array<std::pair<RecommendationBasis, const char*>, 2> kBases{{
    {RecommendationBasis::kRule, "rule"},
    {RecommendationBasis::kSimulation, "simulation"},
}};
constexpr std::array<std::pair<TierBound, const char*>, 6> kBounds{{
    {TierBound::kRule, "rule"},
    {TierBound::kKnee, "knee"},
    {TierBound::kFloor, "floor"},
    {TierBound::kDramCap, "dram-cap"},
    {TierBound::kNone, "none"},
    {TierBound::kInterrupted, "interrupted"},
}};

template <typename Enum, std::size_t N>
std::string spell(const std::array<std::pair<Enum, const char*>, N>& table, Enum value) {
  for (const auto& [e, text] : table)
    if (e == value) return text;
  return "?";
}

template <typename Enum, std::size_t N>
Enum parse(const std::array<std::pair<Enum, const char*>, N>& table, const std::string& text,
           const std::string& what) {
  std::string accepted;  // the accepted spellings, for the error below
  for (const auto& [e, spelling] : table) {
    if (text == spelling) return e;
    accepted += accepted.empty() ? spelling : fmt::format(", {}", spelling);
  }
  throw UsageError(fmt::format("{} '{}': expected one of {}", what, text, accepted));
}

}  // namespace

std::string to_string(TierObjective o) { return spell(kObjectives, o); }
TierObjective parse_tier_objective(const std::string& text, const std::string& what) {
  return parse(kObjectives, text, what);
}
std::string to_string(RecommendationBasis b) { return spell(kBases, b); }
RecommendationBasis parse_recommendation_basis(const std::string& text, const std::string& what) {
  return parse(kBases, text, what);
}
std::string to_string(TierBound b) { return spell(kBounds, b); }
TierBound parse_tier_bound(const std::string& text, const std::string& what) {
  return parse(kBounds, text, what);
}

}  // namespace kvb
