#include "sim/engine_counters.hpp"

#include <algorithm>

namespace kvb {

void OccupancySampler::sample(SimTime now, std::int64_t used_blocks) {
  integral_ += static_cast<double>(last_used_) * to_seconds(now - last_time_);
  last_time_ = now;
  last_used_ = used_blocks;
  peak_ = std::max(peak_, static_cast<double>(last_used_));
  trace_.emplace_back(now, static_cast<double>(last_used_));
  if (trace_.size() > kSamples) halve();
}

// Adjacent samples merged into one at the first's time with their time-weighted mean: the step
// function's integral over each merged pair is unchanged. The last sample stays as it is (it
// ends the function).
void OccupancySampler::halve() {
  auto& t = trace_;
  const std::size_t pairs = (t.size() - 1) / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    const auto a = t[2 * i], b = t[2 * i + 1];
    const SimTime end = t[2 * i + 2].first;
    const double mean =
        end > a.first ? (a.second * to_seconds(b.first - a.first) + b.second * to_seconds(end - b.first)) /
                            to_seconds(end - a.first)
                      : b.second;
    t[i] = {a.first, mean};
  }
  std::size_t kept = pairs;
  for (std::size_t j = 2 * pairs; j < t.size(); ++j) t[kept++] = t[j];
  t.resize(kept);
}

}  // namespace kvb
