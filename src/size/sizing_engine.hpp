#pragma once
// The sizing engine: a pure function of model, hardware, parallelism, vLLM settings and
// workload, producing the Sizing record every printer and the report show.
#include "size/sizing.hpp"

namespace kvb {

// Throws UsageError for an impossible configuration (with the flag and what is accepted).
Sizing compute_sizing(const SizingInputs& in);

// Smallest power-of-two TP (up to gpus_per_node, dividing the heads) whose weights take at
// most 70% of one GPU; the node size when none does.
int auto_tensor_parallel(const ModelSpec& m, const HardwareSpec& hw, const std::string& quantization,
                         std::optional<double> gpu_memory_gib);

}  // namespace kvb
