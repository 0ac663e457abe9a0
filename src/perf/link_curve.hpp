#pragma once
// kvbench's one link model: turns a KV transfer (N blocks of B bytes, one direction) into time,
// for `size`'s reload estimate and the simulator's loads and stores. Each block copy takes
// t = t0 + B / bandwidth, per direction: fitted from every block size of a `kvbench dma` profile
// (dma/link_profile_fit.hpp: the benchmark's records fitted, in dma/ so that the model never links
// the benchmark), or the hardware table's figures (measured for h100/h200, else the
// datasheet's practical bandwidth and a published t0), and the source says which. Each direction
// is its own link, busy one transfer at a time.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "catalog/hardware_spec.hpp"

namespace kvb {

// Per-copy cost of one cudaMemcpyAsync where nothing was measured: the DMA fit t = t0 + bytes/B
// over the vLLM blog's H100 copy figures
// (https://blog.vllm.ai/2026/01/08/kv-offloading-connector.html).
inline constexpr double kDefaultPerCopySeconds = 3.5e-6;

struct LinkCurve {
  double gbps = 0;        // B, 10^9 bytes per second
  double per_copy_s = 0;  // t0

  double seconds(std::int64_t blocks, double block_bytes) const;
};

struct LinkProfile {
  std::string source;   // where the figures came from, printed with every result
  std::string warning;  // set when the figures are not a GPU link (a host-backend profile)
  LinkCurve h2d;
  LinkCurve d2h;
  // What a copy kernel's SMs take from the model: a compute load's rate alone over its rate during
  // kernel-method copies (kvbench dma --with-compute). 1 = unknown or none; engine steps that
  // overlap a kernel-method transfer take this much longer.
  double kernel_compute_slowdown = 1.0;
  std::string kernel_slowdown_source;
};

LinkProfile link_profile_from_hardware(const HardwareSpec& hw);

}  // namespace kvb
