#pragma once
// One direction of the simulated host link: transfers queue behind each other, each taking what
// perf/link_curve.hpp says it takes.
#include <algorithm>
#include <cstdint>

#include "sim/sim_time.hpp"

namespace kvb {

// One direction of the host link: transfers queue behind each other.
class Link {
 public:
  // Starts a transfer of `took` no earlier than `now`; returns its completion time.
  SimTime submit(SimTime now, SimDuration took, double bytes) {
    free_at_ = std::max(now, free_at_) + took;
    busy_ += took;
    bytes_ += bytes;
    ++transfers_;
    return free_at_;
  }
  double busy_seconds() const { return to_seconds(busy_); }
  bool busy_at(SimTime t) const { return free_at_ > t; }
  SimTime free_at() const { return free_at_; }
  double bytes() const { return bytes_; }
  std::int64_t transfers() const { return transfers_; }

 private:
  SimTime free_at_{};
  SimDuration busy_{};
  double bytes_ = 0;
  std::int64_t transfers_ = 0;
};

}  // namespace kvb
