#pragma once
// Summary statistics of timing samples and the stopping rule: measure until the median is known
// to a stated precision (its distribution-free 95% confidence interval), or a cap is reached.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace kvb {

struct Summary {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0, mean = 0, stddev = 0;
  double relative_noise = 0;  // stddev / mean
  std::size_t count = 0;
};

// Linear-interpolated percentiles (the same definition as numpy's default).
Summary summarize(std::vector<double> values);

// The distribution-free 95% confidence interval of the median: order statistics x(j) and
// x(n+1-j) with j the largest rank for which P(Binomial(n, 1/2) < j) <= 2.5% (exact up to n = 200,
// the normal approximation above). Needs n >= 6; smaller samples have no such interval.
struct MedianInterval {
  bool defined = false;
  double low = 0, high = 0, median = 0;
  // max(median - low, high - median) / median: the relative precision the median is known to.
  double relative_half_width() const;
};
MedianInterval median_interval(std::vector<double> values);
// The 1-based rank j above, or 0 when n < 6.
std::size_t median_interval_rank(std::size_t n);

class GroupTicket;

struct StoppingRule {
  int warmups = 2;
  std::size_t min_samples = 10;
  std::size_t max_samples = 10000;
  double min_seconds = 0.05;  // of timed work: a case of sub-millisecond transfers still runs long enough
                              // that its fixed set-up and verification stay a small share
  double max_seconds = 1.0;   // cap on a case: its set-up (not the pools built once), warm-ups and timed work
  double precision = 0.01;    // stop once the median's 95% interval is within +-1% of it
  // Several devices measuring one case at once (--device all): each member starts its timed runs
  // together with the others and keeps copying (unrecorded) until every member has its samples,
  // so every recorded sample saw all devices busy.
  GroupTicket* group = nullptr;
};

// One timed run returns the duration of the transfer in seconds.
struct TimedRun {
  double device_s = 0;  // device events (GPU) or steady clock around the copies (host)
  double wall_s = 0;    // host wall time including submission
};

struct RunResult {
  std::vector<TimedRun> runs;
  bool converged = false;      // precision met before a cap
  double precision = 0;        // the median's relative 95% half-width at the stop (0: undefined)
  std::size_t first_call = 0;  // calls of `once` before the first recorded run (warm-ups)
  double timed_seconds = 0;    // sum over recorded runs of max(wall, device)
  double loop_seconds = 0;     // wall time of the whole loop: warm-ups, timed and held runs
};

// Warm-ups, then timed runs until: at least min_samples and min_seconds, and the median known
// to `precision`; or max_seconds / max_samples reached.
RunResult run_until_stable(const std::function<TimedRun()>& once, const StoppingRule& rule);

// The members of one concurrently measured case (see StoppingRule::group). Every member either
// runs run_until_stable with its ticket or leaves; nobody waits for a member that left.
class ConcurrentGroup {
 public:
  explicit ConcurrentGroup(int members) : waiting_for_(members), unfinished_(members) {}
  ConcurrentGroup(const ConcurrentGroup&) = delete;
  ConcurrentGroup& operator=(const ConcurrentGroup&) = delete;

 private:
  friend class GroupTicket;
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_for_;  // members not yet at the start line
  int unfinished_;   // members without their samples
};

// One member's place in a group. Its destructor leaves the group where the member did not get
// that far (a waived case, an error), so the others never wait for it.
class GroupTicket {
 public:
  explicit GroupTicket(ConcurrentGroup& g) : group_(&g) {}
  ~GroupTicket();
  GroupTicket(const GroupTicket&) = delete;
  GroupTicket& operator=(const GroupTicket&) = delete;
  void start();   // waits until every remaining member has warmed up
  void finish();  // this member has its samples
  bool all_finished() const;

 private:
  ConcurrentGroup* group_;
  bool started_ = false, finished_ = false;
};

}  // namespace kvb
