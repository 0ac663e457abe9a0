// The parts of a measurement every backend shares: the whole case's clock and turning a run loop
// into a CaseResult.
#include <chrono>

#include "dma/transfer_backend.hpp"

namespace kvb {

CaseResult TransferBackend::measure(const TransferCase& c, const StoppingRule& rule) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult r = do_measure(c, rule);
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
