#include "dma/statistics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/interrupt.hpp"
#include "core/percentile.hpp"

namespace kvb {

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

std::size_t median_interval_rank(std::size_t n) {
  if (n < 6) return 0;  // even (x(1), x(n)) covers the median with less than 95% below n = 6
  if (n > 200) {
    // Normal approximation: j = n/2 - 1.96 sqrt(n)/2, rounded down (conservative).
    const double j =
        std::floor(static_cast<double>(n) / 2.0 - 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0);
    return static_cast<std::size_t>(std::max(1.0, j));
  }
  // Exact: add binomial(n, 1/2) probabilities P(B = i) while P(B <= i) stays within 2.5%.
  double p = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  double cumulative = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i <= n; ++i) {
    if (cumulative + p > 0.025) break;
    cumulative += p;
    j = i + 1;  // P(B < j) = P(B <= i) <= 2.5%
    p *= static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return std::max<std::size_t>(j, 1);
}

double MedianInterval::relative_half_width() const {
  if (!defined || median <= 0) return 0;
  return std::max(median - low, high - median) / median;
}

MedianInterval median_interval(std::vector<double> values) {
  MedianInterval m;
  const std::size_t j = median_interval_rank(values.size());
  if (j == 0) return m;
  std::sort(values.begin(), values.end());
  m.defined = true;
  m.low = values[j - 1];
  m.high = values[values.size() - j];
  m.median = percentile_sorted(values, 0.5);
  return m;
}

RunResult run_until_stable(const std::function<TimedRun()>& once, const StoppingRule& rule) {
  using Clock = std::chrono::steady_clock;
  const auto loop_start = Clock::now();
  RunResult r;
  // Warm-ups count toward the cap (max_seconds bounds the case, not only its recorded runs).
  double warmup_seconds = 0;
  for (int i = 0; i < rule.warmups; ++i) {
    const auto t = once();
    warmup_seconds += std::max(t.wall_s, t.device_s);
  }
  r.first_call = static_cast<std::size_t>(std::max(rule.warmups, 0));
  if (rule.group != nullptr) rule.group->start();
  std::vector<double> device;
  // The interval is re-checked every ~6% more samples, not after each one: a case of 10,000
  // samples would otherwise spend seconds sorting.
  std::size_t next_check = 0;
  const auto precise = [&] {
    const auto m = median_interval(device);
    r.precision = m.relative_half_width();
    return m.defined && r.precision <= rule.precision;
  };
  while (true) {
    const auto t = once();
    r.runs.push_back(t);
    device.push_back(t.device_s);
    r.timed_seconds += std::max(t.wall_s, t.device_s);
    const bool enough = device.size() >= rule.min_samples && r.timed_seconds >= rule.min_seconds;
    // A signal ends the case at once (its caller drops it).
    const bool capped = device.size() >= rule.max_samples ||
                        warmup_seconds + r.timed_seconds >= rule.max_seconds || interrupt_requested();
    if (enough && (device.size() >= next_check || capped)) {
      next_check = device.size() + std::max<std::size_t>(1, device.size() / 16);
      if (precise()) {
        r.converged = true;
        break;
      }
    }
    if (capped) {
      if (!enough) (void)precise();
      break;
    }
  }
  if (rule.group != nullptr) {
    // Keep this device's link busy until every member has its samples.
    rule.group->finish();
    while (!rule.group->all_finished()) (void)once();
  }
  r.loop_seconds = std::chrono::duration<double>(Clock::now() - loop_start).count();
  return r;
}

GroupTicket::~GroupTicket() {
  if (!started_) {
    // Leaving before the start line: the others must not wait for this member.
    std::lock_guard<std::mutex> lock(group_->mutex_);
    started_ = true;
    --group_->waiting_for_;
    group_->changed_.notify_all();
  }
  finish();
}

void GroupTicket::start() {
  std::unique_lock<std::mutex> lock(group_->mutex_);
  started_ = true;
  if (--group_->waiting_for_ <= 0) {
    group_->changed_.notify_all();
    return;
  }
  group_->changed_.wait(lock, [&] { return group_->waiting_for_ <= 0; });
}

void GroupTicket::finish() {
  std::lock_guard<std::mutex> lock(group_->mutex_);
  if (finished_) return;
  finished_ = true;
  --group_->unfinished_;
  group_->changed_.notify_all();
}

bool GroupTicket::all_finished() const {
  std::lock_guard<std::mutex> lock(group_->mutex_);
  return group_->unfinished_ <= 0;
}

}  // namespace kvb
