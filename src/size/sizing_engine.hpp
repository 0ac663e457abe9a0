#pragma once
// The sizing engine: a pure function of model, hardware, parallelism, vLLM settings and
// workload, producing the Sizing record every printer and the report show.
#include "size/sizing.hpp"

namespace kvb {

// Throws UsageError for an impossible configuration (with the flag and what is accepted).
Sizing compute_sizing(const SizingInputs& in);

}  // namespace kvb
