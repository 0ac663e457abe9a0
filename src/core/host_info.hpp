#pragma once
// Facts about the host machine that results record.
#include <string>

namespace kvb {

// The CPU's model name from /proc/cpuinfo, or "unknown CPU".
std::string host_cpu_model();

}  // namespace kvb
