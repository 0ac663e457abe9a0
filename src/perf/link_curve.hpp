#pragma once
// kvbench's one link model: turns a KV transfer (N blocks of B bytes, one direction) into time,
// for `size`'s reload estimate and the simulator's loads and stores. Each block copy takes
// t = t0 + B / bandwidth, per direction: fitted from every block size of a `kvbench dma` profile
// (dma/link_profile_fit.hpp: the benchmark's records fitted, in dma/ so that the model never links
// the benchmark), or the hardware table's figures (measured for h100/h200, else the
// datasheet's practical bandwidth and a published t0), and its origin says which (worded by
// output/common/link_origin_text). Each direction is its own link, busy one transfer at a time.
#include <cstddef>
#include <cstdint>
#include <optional>
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

// Where a profile's figures came from, printed with every result.
enum class LinkFigures {
  kDatasheet,      // the hardware table's practical figure and the published t0 (soft: not measured)
  kTableMeasured,  // the hardware table's link, measured by kvbench dma (HardwareSpec::measured_link)
  kFitted,         // fitted to a kvbench dma result's records (--link-profile, an assessment's sweep)
};
struct LinkOrigin {
  LinkFigures figures = LinkFigures::kDatasheet;
  std::string hardware;         // kDatasheet, kTableMeasured: the table's entry
  std::string measured_by;      // kTableMeasured: the table's source of the measurement
  std::string file;             // kFitted: the result ("--link-profile '...'")
  std::string device;           // kFitted: the GPU its records measured
  std::string method;           // kFitted: the copy method fitted
  std::size_t block_sizes = 0;  // kFitted: block sizes in the h2d fit
  bool host_backend = false;    // kFitted: host-memory copies by the host backend, not a GPU link
};
// Where kernel_compute_slowdown came from: the hardware table's entry, or the median of a
// result's --with-compute records.
struct SlowdownOrigin {
  std::string hardware;  // set: the table's figure
  std::string file;      // else: the result
  std::size_t records = 0;
};

struct LinkProfile {
  LinkOrigin origin;
  LinkCurve h2d;
  LinkCurve d2h;
  // What a copy kernel's SMs take from the model: a compute load's rate alone over its rate during
  // kernel-method copies (kvbench dma --with-compute). 1 = unknown or none; engine steps that
  // overlap a kernel-method transfer take this much longer.
  double kernel_compute_slowdown = 1.0;
  std::optional<SlowdownOrigin> slowdown_origin;  // none: unknown
};

LinkProfile link_profile_from_hardware(const HardwareSpec& hw);

}  // namespace kvb
