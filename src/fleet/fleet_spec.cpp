#include "fleet/fleet_spec.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

constexpr std::array<std::pair<RouterKind, const char*>, 5> kRouterNames{{
    {RouterKind::kRoundRobin, "round-robin"},
    {RouterKind::kLeastLoaded, "least-loaded"},
    {RouterKind::kPrefixAware, "prefix-aware"},
    {RouterKind::kSession, "session"},
    {RouterKind::kPrefixApprox, "prefix-approx"},
}};

}  // namespace

std::string to_string(RouterKind k) {
  for (const auto& [kind, name] : kRouterNames) {
    if (kind == k) return name;
  }
  return "round-robin";
}

std::vector<std::string> router_names() {
  std::vector<std::string> names;
  for (const auto& entry : kRouterNames) names.emplace_back(entry.second);
  return names;
}

RouterKind parse_router(const std::string& name, const std::string& what) {
  for (const auto& [kind, known] : kRouterNames) {
    if (name == known) return kind;
  }
  throw UsageError(
      fmt::format("{}: unknown router '{}'; expected {}", what, name, join(router_names(), ", ")));
}

int checked_replicas(long long n, const std::string& what) {
  if (n < 1 || n > kMaxReplicas) {
    throw UsageError(
        fmt::format("{}: {} replicas; expected a whole number from 1 to {}", what, n, kMaxReplicas));
  }
  return static_cast<int>(n);
}

}  // namespace kvb
