#pragma once
// Turns a KV transfer (N blocks of B bytes, one direction) into time. From a `kvbench dma`
// JSON profile: the measured GB/s at that block size for N scattered blocks (interpolated in
// log-log between measured sizes, clamped at the ends), so the per-copy cost is inside the
// figure. Without one: the hardware table's practical link bandwidth and a fixed per-copy cost,
// t = N x (t0 + B / bandwidth). Each direction is its own link, busy one transfer at a time.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dma/dma_record.hpp"
#include "size/hardware_spec.hpp"

namespace kvb {

struct LinkCurve {
  std::vector<std::pair<double, double>> measured;  // (block bytes, GB/s), sorted by size
  double gbps = 0;                                  // analytic model when nothing was measured
  double per_copy_s = 0;

  double seconds(std::int64_t blocks, double block_bytes) const;
  double gbps_at(double block_bytes) const;
};

struct LinkProfile {
  std::string source;  // where the figures came from, printed with every result
  std::string warning; // set when the figures are not a GPU link (a host-backend profile)
  LinkCurve h2d;
  LinkCurve d2h;
};

LinkProfile link_profile_from_hardware(const HardwareSpec& hw);

// Reads kvbench/dma/v1 JSON; uses verified, unwaived one-way records of `method` on the first
// device in the file. Throws UsageError naming the file when it lacks them.
LinkProfile link_profile_from_dma_json(const std::string& path, const std::string& method);

// The same from records already in memory; `origin` names them in messages and in the source.
LinkProfile link_profile_from_dma_records(const std::vector<DmaRecord>& records, const std::string& method,
                                          const std::string& origin);

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
  double bytes() const { return bytes_; }
  std::int64_t transfers() const { return transfers_; }

 private:
  double free_at_ = 0;
  double busy_s_ = 0;
  double bytes_ = 0;
  std::int64_t transfers_ = 0;
};

}  // namespace kvb
