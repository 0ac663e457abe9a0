#include "dma/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kvb {
namespace {

double percentile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

}  // namespace

Summary summarize(std::vector<double> values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.median = percentile_sorted(values, 0.5);
  s.p10 = percentile_sorted(values, 0.1);
  s.p90 = percentile_sorted(values, 0.9);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 ? std::sqrt(sq / static_cast<double>(values.size() - 1)) : 0.0;
  s.relative_noise = s.mean > 0 ? s.stddev / s.mean : 0.0;
  return s;
}

RunResult run_until_stable(const std::function<TimedRun()>& once, const StoppingRule& rule) {
  for (int i = 0; i < rule.warmups; ++i) (void)once();
  RunResult r;
  std::vector<double> device;
  double total = 0;
  while (true) {
    const auto t = once();
    r.runs.push_back(t);
    device.push_back(t.device_s);
    total += std::max(t.wall_s, t.device_s);
    const bool enough = device.size() >= rule.min_samples && total >= rule.min_seconds;
    if (enough && summarize(device).relative_noise <= rule.target_noise) {
      r.converged = true;
      break;
    }
    if (device.size() >= rule.max_samples || total >= rule.max_seconds) {
      r.converged = device.size() >= rule.min_samples && summarize(device).relative_noise <= rule.target_noise;
      break;
    }
  }
  return r;
}

}  // namespace kvb
