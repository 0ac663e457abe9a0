#pragma once
// The one measurement skeleton every backend runs through (TransferBackend::measure): waive,
// prepare, warm up and time until the median is stable (run_until_stable), slice bidir runs per
// direction, bracket the timed phase with the compute load, verify. A backend supplies only what
// differs: whether it can run a case, how to prepare it, how to issue it once, how to verify it,
// and its compute load.
#include <memory>
#include <string>

#include "dma/statistics.hpp"

namespace kvb {

// One timed issue of a prepared case.
struct IssueTiming {
  TimedRun run;      // the whole transfer (bidir: both directions together)
  double h2d_s = 0;  // bidir only: each direction's own span
  double d2h_s = 0;
};

// A case with its pools, copy lists and streams ready, destinations cleared for verification.
class PreparedCase {
 public:
  virtual ~PreparedCase() = default;
  // Issues every copy of the case once and waits for them.
  virtual IssueTiming issue_once() = 0;
  // After the last run: "" when every destination block holds its source's bytes, else the
  // first mismatch.
  virtual std::string verify() = 0;
};

// --with-compute: a load that competes with the copies for the device (SMs) or the host's cores.
class ComputeLoad {
 public:
  virtual ~ComputeLoad() = default;
  virtual double rate_alone() = 0;  // work units per second with nothing else running
  virtual void start() = 0;         // starts competing with the copies
  virtual double stop() = 0;        // work units per second while the copies ran
  virtual std::string description() const = 0;
};

}  // namespace kvb
