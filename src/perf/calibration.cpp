#include "perf/calibration.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_file.hpp"

namespace kvb {
namespace {

double fraction(const YamlObject& o, const std::string& key, double fallback) {
  const double v = o.real_or(key, fallback);
  if (!(v >= kMinEfficiency && v <= 1.0)) {
    throw UsageError(fmt::format("{}: key '{}' is {:g}; expected a fraction of peak from {:g} to 1", o.origin(), key, v,
                                 kMinEfficiency));
  }
  return v;
}

}  // namespace

Calibration parse_calibration(const YamlObject& o, const std::string& source) {
  Calibration c;
  c.compute_efficiency = fraction(o, "compute-efficiency", c.compute_efficiency);
  c.memory_efficiency = fraction(o, "memory-efficiency", c.memory_efficiency);
  const double overhead_us = o.real_in("step-overhead-us", 0, kMaxStepOverheadUs, c.step_overhead_s * 1e6);
  c.step_overhead_s = overhead_us * 1e-6;
  c.source = source;
  if (o.has("measured")) {
    const auto m = o.object("measured");
    c.source += fmt::format(" (kvbench calibrate on {}, {})", m.str_or("device", "an unnamed GPU"), m.str_or("model", "?"));
  }
  // `measured`: what `kvbench calibrate` timed, kept with the figures for the reader; not read.
  o.reject_unknown_keys({"compute-efficiency", "memory-efficiency", "step-overhead-us", "measured"});
  return c;
}

Calibration default_calibration(const HardwareSpec& hw) {
  Calibration c;
  const auto& t = hw.measured_time_model;
  if (t.source.empty()) return c;
  c.compute_efficiency = t.compute_efficiency;
  c.memory_efficiency = t.memory_efficiency;
  c.step_overhead_s = t.step_overhead_us * 1e-6;
  c.source = fmt::format("{} (fitted to {})", hw.name, t.source);
  return c;
}

Calibration load_calibration(const std::string& path) {
  return parse_calibration(YamlObject::parse(read_text_file(path, "--calibration"), path), path);
}

}  // namespace kvb
