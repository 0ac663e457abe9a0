#include "output/common/expected_error_text.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/strings.hpp"

namespace kvb {
namespace {

std::string scored_text(const ScoredClass& c) {
  return fmt::format(
      "TTFT mean within {:.1f}%, E2E mean within {:.1f}% (mean absolute error; worst {:.1f}% and {:.1f}%) on "
      "{} "
      "scored cases of {} ({}: tests/fidelity)",
      100 * c.ttft_mean, 100 * c.e2e_mean, 100 * c.ttft_worst, 100 * c.e2e_worst, c.runs,
      server_class_text(c.moe, c.weights, c.ranks), c.runs_described);
}

}  // namespace

std::string server_class_text(bool moe, const std::string& weights, int ranks) {
  return fmt::format("{} {} on {} rank{}", moe ? "mixture-of-experts" : "dense", weights, ranks,
                     ranks == 1 ? "" : "s");
}

std::string expected_error_text(const ExpectedError& e) {
  if (e.scored.empty()) return "";
  if (const auto* same = scored_class_of(e)) {
    // The figures are one engine's; a fleet's routing is scored only on what the tier changes.
    if (e.fleet) {
      return scored_text(*same) +
             "; per engine only: the fleet's routing is scored only on the CPU tier's change in llm-d's "
             "8-replica guide (tests/fidelity/fleet.py)";
    }
    return scored_text(*same);
  }
  std::vector<std::string> classes;
  for (const auto& c : e.scored) classes.push_back(server_class_text(c.moe, c.weights, c.ranks));
  return fmt::format("not scored for {}: the scored servers on an {} are {} (tests/fidelity)",
                     server_class_text(e.moe, e.weights, e.ranks), e.hardware, join(classes, "; "));
}

}  // namespace kvb
