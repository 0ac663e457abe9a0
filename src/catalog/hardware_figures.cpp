#include "catalog/hardware_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

// Floors well below the slowest card anyone serves on (the catalog's smallest: an RTX 4070 SUPER,
// 12 GB, 504 GB/s, 71 TFLOP/s; PCIe Gen1 x1 carries 0.25 GB/s), ceilings at a million in the
// unit (no card or host comes near). Efficiencies are shares of a peak.
constexpr double kFigureCeiling = 1e6;
constexpr std::array<FigureBounds, 25> kBounds{{
    {"hbm_gb", 1, kFigureCeiling, "GB"},
    {"usable_gib", 0.5, kFigureCeiling, "GiB"},
    {"hbm_bandwidth_gbps", 10, kFigureCeiling, "GB/s"},
    {"c2c_gbps_per_direction", kMinLinkGbps, kFigureCeiling, "GB/s"},
    {"link_practical_gbps", kMinLinkGbps, kFigureCeiling, "GB/s"},
    {"bf16_tflops", 0.1, kFigureCeiling, "TFLOP/s"},
    {"fp8_tflops", 0.1, kFigureCeiling, "TFLOP/s"},
    {"fp4_tflops", 0.1, kFigureCeiling, "TFLOP/s"},
    {"gpu_link_gbps", kMinLinkGbps, kFigureCeiling, "GB/s"},
    {"gpu_link_latency_us", 0.1, kFigureCeiling, "us"},
    {"host_dram_gb", 1, kFigureCeiling, "GB"},
    {"link_kernel_compute_slowdown", kMinKernelSlowdown, kMaxKernelSlowdown, "x"},
    {"link_measured_h2d_gbps", kMinLinkGbps, kFigureCeiling, "GB/s"},
    {"link_measured_d2h_gbps", kMinLinkGbps, kFigureCeiling, "GB/s"},
    {"link_measured_h2d_per_copy_us", 0.01, kFigureCeiling, "us"},
    {"link_measured_d2h_per_copy_us", 0.01, kFigureCeiling, "us"},
    {"time_model_compute_efficiency", kMinFractionOfPeak, 1, "of peak"},
    {"time_model_memory_efficiency", kMinFractionOfPeak, 1, "of peak"},
    {"time_model_attention_efficiency", kMinFractionOfPeak, 1, "of peak"},
    {"time_model_load_efficiency", kMinFractionOfPeak, 1, "of peak"},
    {"time_model_step_overhead_us", 0.1, kFigureCeiling, "us"},
    {"time_model_request_overhead_us", 0.1, kFigureCeiling, "us"},
    {"time_model_gemm_half_tokens", 1, kFigureCeiling, "tokens"},
    {"pinning_register_s_per_gib", 1e-3, kFigureCeiling, "s/GiB"},
    {"pinning_host_alloc_s_per_gib", 1e-3, kFigureCeiling, "s/GiB"},
}};

}  // namespace

const FigureBounds* hardware_figure_bounds(const std::string& key) {
  for (const auto& b : kBounds) {
    if (key == b.key) return &b;
  }
  return nullptr;
}

double hardware_figure(const YamlObject& y, const char* key) {
  const auto* b = hardware_figure_bounds(key);
  if (b == nullptr) throw std::logic_error(fmt::format("hardware key '{}' has no bounds", key));
  const double v = y.real(key);
  if (!(v >= b->lo && v <= b->hi)) {
    throw UsageError(fmt::format("{}: key '{}' is {:g}; expected {} to {} {}", y.origin(), key, v,
                                 format_plain_number(b->lo), format_plain_number(b->hi), b->unit));
  }
  return v;
}

bool is_vllm_block_size(long long tokens) {
  return std::find(kVllmBlockSizes.begin(), kVllmBlockSizes.end(), tokens) != kVllmBlockSizes.end();
}

double optional_peak(const YamlObject& y, const char* key) {
  if (!y.has(key) || y.real(key) == 0) return 0;
  return hardware_figure(y, key);
}

}  // namespace kvb
