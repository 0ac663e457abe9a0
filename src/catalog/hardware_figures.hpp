#pragma once
// The range each figure of a hardware file can physically take, in the file's units: one bound per
// figure, checked where the file is read (--hw FILE, a scenario's hardware:, the catalog) before
// any figure reaches the time model. Below the floor a figure prints as "0 TFLOP/s" and turns a
// TTFT into 300 digits; above the ceiling it is a typo or an overflow.
#include <array>
#include <string>

namespace kvb {

class YamlObject;  // core/yaml_reader.hpp: only its readers include yaml-cpp

// No serving GPU runs a model's kernels below 1% of a datasheet peak (perf's calibrations share it).
inline constexpr double kMinFractionOfPeak = 0.01;
// The slowest host or GPU link a figure may state, GB/s (PCIe Gen1 x1 carries 0.25): a hardware
// file's, and a dma result's fitted link (--link-profile).
inline constexpr double kMinLinkGbps = 0.1;
// vLLM's block sizes (--block-size's choices, tokens per KV block; vllm/config/cache.py BlockSize),
// what an attention backend forces for MLA (a hardware file's mla_block_size) too.
inline constexpr std::array<int, 7> kVllmBlockSizes{1, 8, 16, 32, 64, 128, 256};
inline constexpr int kMaxBlockTokens = kVllmBlockSizes.back();
bool is_vllm_block_size(long long tokens);
// Measured or datasheet, a copy kernel beside the model never speeds it up (1 = no slowdown); 100x
// is past any measurement (kvbench dma --with-compute).
inline constexpr double kMinKernelSlowdown = 1;
inline constexpr double kMaxKernelSlowdown = 100;

struct FigureBounds {
  const char* key;
  double lo, hi;
  const char* unit;
};

// The bounds of a hardware file's numeric key; nullptr for a key that holds no figure.
const FigureBounds* hardware_figure_bounds(const std::string& key);

// The key's figure, required, in its bounds; UsageError naming the file, the key, the range and
// the unit otherwise.
double hardware_figure(const YamlObject& y, const char* key);

// A tensor-core peak a card may lack (fp8_tflops, fp4_tflops): absent or 0 is none (0 returned),
// anything else within the key's bounds.
double optional_peak(const YamlObject& y, const char* key);

}  // namespace kvb
