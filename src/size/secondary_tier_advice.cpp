#include "size/secondary_tier_advice.hpp"

#include <array>
#include <utility>

namespace kvb {
namespace {

// One table per enum: its spelling in kvbench/size/v1, both ways.
constexpr std::array<std::pair<SecondaryVerdict, const char*>, 8> kVerdicts{{
    {SecondaryVerdict::kPays, "pays"},
    {SecondaryVerdict::kNoCpuTier, "no-cpu-tier"},
    {SecondaryVerdict::kWorkingSetInCpu, "working-set-in-cpu-tier"},
    {SecondaryVerdict::kWithinModelError, "within-model-error"},
    {SecondaryVerdict::kDiskSlowerThanRecompute, "disk-slower-than-recompute"},
    {SecondaryVerdict::kCosts, "costs"},
    {SecondaryVerdict::kBelowThreshold, "below-threshold"},
    {SecondaryVerdict::kInterrupted, "interrupted"},
}};
constexpr std::array<std::pair<SecondaryCapacityBasis, const char*>, 2> kBases{{
    {SecondaryCapacityBasis::kLadder, "ladder"},
    {SecondaryCapacityBasis::kPeakHeld, "peak-held"},
}};

}  // namespace

std::string to_string(SecondaryVerdict v) {
  for (const auto& [k, name] : kVerdicts)
    if (k == v) return name;
  return "pays";
}

std::optional<SecondaryVerdict> secondary_verdict_from_name(const std::string& name) {
  for (const auto& [k, n] : kVerdicts)
    if (name == n) return k;
  return std::nullopt;
}

std::string to_string(SecondaryCapacityBasis b) {
  return b == SecondaryCapacityBasis::kPeakHeld ? "peak-held" : "ladder";
}

std::optional<SecondaryCapacityBasis> secondary_basis_from_name(const std::string& name) {
  for (const auto& [k, n] : kBases)
    if (name == n) return k;
  return std::nullopt;
}

}  // namespace kvb
