#pragma once
// One direction of the simulated host link: transfers queue behind each other, each taking what
// perf/link_curve.hpp says it takes.
#include <cstdint>

namespace kvb {

// One direction of the host link: transfers queue behind each other.
class Link {
 public:
  // Starts a transfer no earlier than `now`; returns its completion time.
  double submit(double now, double seconds, double bytes) {
    const double start = now > free_at_ ? now : free_at_;
    free_at_ = start + seconds;
    busy_s_ += seconds;
    bytes_ += bytes;
    ++transfers_;
    return free_at_;
  }
  double busy_seconds() const { return busy_s_; }
  bool busy_at(double t) const { return free_at_ > t; }
  double free_at() const { return free_at_; }
  double bytes() const { return bytes_; }
  std::int64_t transfers() const { return transfers_; }

 private:
  double free_at_ = 0;
  double busy_s_ = 0;
  double bytes_ = 0;
  std::int64_t transfers_ = 0;
};

}  // namespace kvb
