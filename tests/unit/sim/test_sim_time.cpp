// The simulator's clock in integer nanoseconds (sim/sim_time.hpp): the time model's seconds enter
// it rounded to the nearest nanosecond, bad spans are refused, and sums do not drift.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "sim/event_queue.hpp"
#include "sim/link_queue.hpp"
#include "sim/sim_time.hpp"

namespace kvb {
namespace {

TEST(SimTime, SecondsRoundToTheNearestNanosecond) {
  EXPECT_EQ(to_sim_duration(0.0).count(), 0);
  EXPECT_EQ(to_sim_duration(1.0).count(), 1'000'000'000);
  EXPECT_EQ(to_sim_duration(1.4e-9).count(), 1);
  EXPECT_EQ(to_sim_duration(1.6e-9).count(), 2);  // truncation would give 1
  EXPECT_EQ(to_sim_duration(1.0 / 3.0).count(), 333'333'333);
  EXPECT_EQ(to_sim_duration(2.0 / 3.0).count(), 666'666'667);  // truncation would give ...666
  EXPECT_EQ(to_sim_duration(-0.4e-9).count(), 0);              // a rounding residue below zero is zero
  EXPECT_EQ(sim_time_at(12.5).time_since_epoch().count(), 12'500'000'000);
  // Back to seconds: exact where the nanoseconds are, nearest double otherwise.
  EXPECT_EQ(to_seconds(to_sim_duration(1.5)), 1.5);
  EXPECT_EQ(to_seconds(sim_time_at(3600.25)), 3600.25);
  EXPECT_EQ(to_seconds(SimDuration{333'333'333}), 0.333333333);
}

std::string refusal(double seconds) {
  try {
    to_sim_duration(seconds, "client-timeout");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(SimTime, ANegativeNanOrTooLongSpanIsRefusedNotWrapped) {
  for (const double bad : {-1e-9, -1.0, std::nan(""), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), kMaxSimSeconds * 1.001, 1e300}) {
    const auto e = refusal(bad);
    EXPECT_NE(e.find("client-timeout"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("expected 0 to 4.6e+09 s"), std::string::npos) << bad << ": " << e;
  }
  // The bound itself is held, and an instant plus a span at the bound does not wrap.
  const auto longest = to_sim_duration(kMaxSimSeconds);
  EXPECT_EQ(longest.count(), 4'600'000'000'000'000'000);
  EXPECT_GT(sim_time_at(kMaxSimSeconds) + longest, sim_time_at(kMaxSimSeconds));
}

// A million transfers of (k + 1/3) ns each, back to back on one link: each enters the clock
// rounded down by exactly 1/3 ns, once, and the clock is the exact sum of what entered it, so the
// link's end is sum(k) ns to the nanosecond and its busy time equals it; the true sum is
// sum(k) + 1e6 / 3 ns, off by the rounding alone and not by anything accumulated.
TEST(SimTime, AMillionThirdOfANanosecondSpansSumWithoutDrift) {
  constexpr int kN = 1'000'000;
  Link link;
  const SimTime start = sim_time_at(1000.0);  // where a double's step is 1e-13 s, not 1e-9
  std::int64_t whole = 0;
  for (int i = 0; i < kN; ++i) {
    const int k = i % 7 + 1;
    whole += k;
    link.submit(start, to_sim_duration((k + 1.0 / 3.0) * 1e-9), 1.0);
  }
  EXPECT_EQ((link.free_at() - start).count(), whole);
  EXPECT_EQ(link.busy_seconds(), to_seconds(SimDuration{whole}));
  EXPECT_EQ(link.transfers(), kN);
  // Stepping back by the same spans returns to the start exactly.
  SimTime t = link.free_at();
  for (int i = 0; i < kN; ++i) t -= to_sim_duration((i % 7 + 1 + 1.0 / 3.0) * 1e-9);
  EXPECT_EQ(t, start);
}

// The old clock's failure: 0.1 s after an event at 0.2 s was not the event scheduled for 0.3 s
// (0.1 + 0.2 != 0.3 in doubles), so the later-pushed one popped first. In nanoseconds they are
// the same instant, and the tie goes by insertion.
TEST(SimTime, EqualInstantsFromDifferentSumsTieByInsertion) {
  EventQueue q;
  q.push(sim_time_at(0.2) + to_sim_duration(0.1), EventKind::kStepDone, 1);
  q.push(sim_time_at(0.3), EventKind::kArrival, 2);
  const auto first = q.pop();
  const auto second = q.pop();
  EXPECT_EQ(first.id, 1);
  EXPECT_EQ(second.id, 2);
  EXPECT_EQ(first.time, second.time);
}

}  // namespace
}  // namespace kvb
