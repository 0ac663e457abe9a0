#pragma once
// The text kvbench trace prints: statistics, then the miss-ratio curve as a table.
#include <string>

#include "trace/trace_json.hpp"

namespace kvb {

std::string trace_text(const TraceAnalysis& a, const TraceKvCost& cost);

}  // namespace kvb
