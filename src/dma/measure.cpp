// TransferBackend's shared half: the measurement skeleton, the whole case's clock, pool
// reservation and turning a run loop into a CaseResult.
#include <algorithm>
#include <chrono>
#include <utility>

#include "dma/measure.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {

CaseResult TransferBackend::measure(const TransferCase& c, const StoppingRule& rule) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r;
  r.waive_reason = do_waive(c);
  r.waived = !r.waive_reason.empty();
  std::unique_ptr<PreparedCase> prepared;
  if (!r.waived) prepared = do_prepare(c, r);
  // --max-time bounds the whole case: what preparing it took (beyond building the pools, which
  // happens once per run and is reported apart) comes off the time left for runs.
  StoppingRule case_rule = rule;
  const double prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  case_rule.max_seconds = std::max(0.0, rule.max_seconds - std::max(0.0, prepare_s - r.pool_setup_s));
  if (!r.waived && prepared) {
    const bool bidir = c.direction == Direction::kBidir;
    std::vector<double> h2d_s, d2h_s;
    const auto once = [&] {
      const auto t = prepared->issue_once();
      if (bidir) {
        h2d_s.push_back(t.h2d_s);
        d2h_s.push_back(t.d2h_s);
      }
      return t.run;
    };
    RunResult result;
    if (c.with_compute) {
      // The load's rate alone first, then over the whole timed phase while the copies compete.
      const auto load = do_compute_load();
      r.compute_alone_per_s = load->rate_alone();
      load->start();
      result = run_until_stable(once, case_rule);
      r.compute_during_per_s = load->stop();
      r.compute_load = load->description();
    } else {
      result = run_until_stable(once, case_rule);
    }
    take_runs(r, std::move(result), h2d_s, d2h_s);
    // What the measured runs wrote (destinations were cleared before the first warm-up).
    r.verify_detail = prepared->verify();
    r.verified = r.verify_detail.empty();
  }
  r.case_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void TransferBackend::reserve(const std::vector<TransferCase>& cases) {
  const auto pools = largest_pools(cases);
  do_reserve(pools.gpu, pools.host);
}

void take_runs(CaseResult& r, RunResult&& run, const std::vector<double>& h2d_spans,
               const std::vector<double>& d2h_spans) {
  const std::size_t n = run.runs.size();
  const std::size_t first = run.first_call;
  const auto slice = [&](const std::vector<double>& spans, std::vector<double>& out) {
    if (spans.size() < first + n) return;  // not a bidir case
    out.assign(spans.begin() + static_cast<std::ptrdiff_t>(first),
               spans.begin() + static_cast<std::ptrdiff_t>(first + n));
  };
  slice(h2d_spans, r.h2d_s);
  slice(d2h_spans, r.d2h_s);
  r.runs = std::move(run.runs);
  r.converged = run.converged;
  r.precision = run.precision;
  r.timed_s = run.timed_seconds;
  r.loop_s = run.loop_seconds;
}

}  // namespace kvb
