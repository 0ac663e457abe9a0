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

// A signed range of errors as how fast or slow kvbench is: "58-82% fast", "5% fast to 12% slow".
std::string direction_text(double lo, double hi) {
  if (hi <= 0) return fmt::format("{:.0f}-{:.0f}% fast", -100 * hi, -100 * lo);
  if (lo >= 0) return fmt::format("{:.0f}-{:.0f}% slow", 100 * lo, 100 * hi);
  return fmt::format("{:.0f}% fast to {:.0f}% slow", -100 * lo, 100 * hi);
}

// A server at one request in flight: what public runs there show for its class, or for every class.
std::string one_in_flight_text(const ExpectedError& e) {
  const auto server = server_class_text(e.moe, e.weights, e.ranks);
  if (const auto* c = one_in_flight_class_of(e)) {
    return fmt::format(
        "at one request in flight (max-num-seqs 1) kvbench's TPOT is {} against public runs of {} "
        "on an {} ({}: tests/fidelity/single_user.py); the figures scored with more requests in "
        "flight do not apply",
        direction_text(c->tpot_error_min, c->tpot_error_max), server, e.hardware, c->runs_described);
  }
  const auto& all = e.at_one_anywhere;
  if (all.runs == 0) {
    return e.scored.empty() ? "" : "not scored at one request in flight (max-num-seqs 1) for " + server;
  }
  return fmt::format(
      "not scored at one request in flight (max-num-seqs 1) for {} on an {}: {} public runs of "
      "other servers at one request in flight (TEASBench) show kvbench's TPOT {} "
      "(tests/fidelity/single_user.py)",
      server, e.hardware, all.runs, direction_text(all.tpot_error_min, all.tpot_error_max));
}

}  // namespace

std::string server_class_text(bool moe, const std::string& weights, int ranks) {
  return fmt::format("{} {} on {} rank{}", moe ? "mixture-of-experts" : "dense", weights, ranks,
                     ranks == 1 ? "" : "s");
}

std::string expected_error_text(const ExpectedError& e) {
  if (!e.recorded.empty()) return e.recorded;  // an older document's words
  if (e.one_in_flight) return one_in_flight_text(e);
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
