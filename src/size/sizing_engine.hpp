#pragma once
// The sizing engine: a pure function of model, hardware, parallelism, vLLM settings and
// workload, producing the Sizing record every printer and the report show.
#include "size/sizing.hpp"

namespace kvb {

// Throws UsageError for an impossible configuration (with the flag and what is accepted).
Sizing compute_sizing(const SizingInputs& in);

// --tp auto: the smallest power-of-two TP (up to gpus_per_node, dividing the heads) at which
// one request of max-model-len fits; the largest such TP when none does.
int auto_tensor_parallel(SizingInputs in);

}  // namespace kvb
