#pragma once
// The host stand-in for pinning a CPU tier: map anonymous memory, touch every page and mlock it,
// timed; what vLLM's tier does with cudaHostRegister in place of mlock.
#include "doctor/node_checks.hpp"

namespace kvb {

// `lock` false: map and touch only (RLIMIT_MEMLOCK below the test size); the figure then says so.
PinningMeasurement measure_host_pinning(double bytes, bool lock);

}  // namespace kvb
