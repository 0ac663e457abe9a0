#pragma once
// Whether the CPU tier pays over the window, from the readings (the rules: docs/observe.md).
#include "observe/observe_window.hpp"

namespace kvb {

// Sets r.evidence and r.verdict from r.readings.
void judge_tier(ObserveResult& r);

}  // namespace kvb
