#pragma once
// The simulator's clock in integer nanoseconds: an instant (SimTime, from the run's time 0) and a
// span (SimDuration). Integers, so equal times are equal exactly (ties then go by insertion:
// sim/event_queue.hpp) and a run's sums do not drift over a million events. The time model
// (perf/'s step model, link curves) speaks double seconds: each of its figures enters the clock
// once, rounded to the nearest nanosecond (to_sim_duration), and the metrics leave it as seconds
// only where they are reported (to_seconds).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace kvb {

struct SimClock;  // a tag: a SimTime of one run's clock, not the wall clock's
using SimDuration = std::chrono::nanoseconds;
using SimTime = std::chrono::time_point<SimClock, SimDuration>;

// An instant not reached yet (a request's first token, its finish).
inline constexpr SimTime kNoTime = SimTime::min();

// The longest span the clock takes, about 146 years: half of 2^63 ns, so that an instant and a
// span, each under it, add without wrapping (a trace's arrivals stop at 1e9 s, timeouts at 1e7 s).
inline constexpr double kMaxSimSeconds = 4.6e9;

// UsageError naming `what` and the range, for to_sim_duration's refusals (sim_time.cpp).
[[noreturn]] void refuse_sim_duration(double seconds, std::string_view what);

// `seconds` rounded to the nearest nanosecond (half away from zero). A span that rounds below 0,
// is not a number, or exceeds kMaxSimSeconds is refused, never wrapped or clamped silently.
inline SimDuration to_sim_duration(double seconds, std::string_view what = "a duration") {
  const double ns = std::round(seconds * 1e9);
  if (!(ns >= 0.0 && ns <= kMaxSimSeconds * 1e9)) refuse_sim_duration(seconds, what);
  return SimDuration{static_cast<std::int64_t>(ns)};
}

// The instant `seconds` after the run's time 0.
inline SimTime sim_time_at(double seconds, std::string_view what = "an instant") {
  return SimTime{to_sim_duration(seconds, what)};
}

// Back to seconds, where a figure is reported: exact to a double's precision (below 2^53 ns,
// about 104 days, the nearest double to the true value).
inline double to_seconds(SimDuration d) { return static_cast<double>(d.count()) / 1e9; }
inline double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }

}  // namespace kvb
