#pragma once
// What pinning a CPU tier costs at every server start: vLLM's native tier maps and first-touches
// its memory and registers it with the driver (cudaHostRegister); torch-style pools use
// cudaHostAlloc. Measured figures only, each with its file.
#include <string>

namespace kvb {

struct PinningCost {
  double register_s_per_gib = 0;    // mmap of /dev/shm + first touch + cudaHostRegister (vLLM's way)
  double host_alloc_s_per_gib = 0;  // cudaHostAlloc (torch pin_memory)
  std::string source;
};

// The node's own figure for h100 and h200 (measured at 32 GiB); other GPUs get the H100 node's,
// said so in `source`.
PinningCost pinning_cost(const std::string& hardware);

}  // namespace kvb
