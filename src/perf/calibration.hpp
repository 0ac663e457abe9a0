#pragma once
// The time model's efficiency factors: achieved over peak compute and HBM bandwidth, and a fixed
// cost per engine step. Defaults, a scenario's `calibration:` block, or a calibration file.
#include <string>

#include "catalog/hardware_spec.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {

struct Calibration {
  double compute_efficiency = 0.5;  // achieved / peak dense FLOP/s
  double memory_efficiency = 0.75;  // achieved / peak HBM bandwidth
  double step_overhead_s = 0.0005;  // scheduler, sampling and launch cost per step
  std::string source = "defaults";
};

// What the figures can physically be: no serving GPU runs a model's kernels below 1% of its peak
// (1e-300 would give TTFTs of 1e300 s), and no engine spends more than a second per step outside
// its kernels.
inline constexpr double kMinEfficiency = 0.01;
inline constexpr double kMaxStepOverheadUs = 1e6;

// Keys compute-efficiency, memory-efficiency (fractions in [0.01, 1]) and step-overhead-us (0 to
// 1e6, finite); UsageError naming the key otherwise. `source` is printed with every result that uses it.
Calibration parse_calibration(const YamlObject& o, const std::string& source);

// Reads a calibration file with the keys above.
Calibration load_calibration(const std::string& path);

// What a run uses without a calibration file or block: the GPU's fitted figures where its
// hardware file has them (h100, h200: measured ground truth), else the generic defaults above.
Calibration default_calibration(const HardwareSpec& hw);

}  // namespace kvb
