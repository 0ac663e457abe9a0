#pragma once
// What pinning a CPU tier costs at every server start: vLLM's native tier maps and first-touches
// its memory and registers it with the driver (cudaHostRegister); torch-style pools use
// cudaHostAlloc. Measured figures only, each with its file: the hardware table's pinning_* keys.
#include <string>

#include "catalog/hardware_spec.hpp"

namespace kvb {

struct PinningCost {
  double register_s_per_gib = 0;    // mmap of /dev/shm + first touch + cudaHostRegister (vLLM's way)
  double host_alloc_s_per_gib = 0;  // cudaHostAlloc (torch pin_memory)
  std::string source;               // the measurement's file; empty: no catalog GPU has one
  std::string hardware;             // the GPU asked about
  std::string stood_in;             // the catalog GPU whose figure stands in; empty: the GPU's own
};

// The GPU's own measured figure where its hardware file has one; otherwise the first catalog
// GPU's that has one, named in `stood_in` (pinning is host work: the GPU hardly matters, the
// host's memory does). output/size/tier_advice_text's pinning_source_text words it.
PinningCost pinning_cost(const HardwareSpec& hw);

}  // namespace kvb
