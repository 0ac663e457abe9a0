#pragma once
// Lengths and times drawn from a named distribution, as written in scenario files:
//   prompt: 512                                   (fixed)
//   prompt: {distribution: uniform, min: 128, max: 2048}
//   prompt: {distribution: lognormal, median: 900, sigma: 0.8, max: 32000}
//   think-time: {distribution: exponential, mean: 20}
#include <cstdint>

#include "core/rng.hpp"

namespace kvb {

struct Distribution {
  enum class Kind { kFixed, kUniform, kLognormal, kExponential };
  Kind kind = Kind::kFixed;
  double value = 0;   // fixed
  double min = 0;     // uniform; lower clamp for the others
  double max = 0;     // uniform; upper clamp for the others (0 = none)
  double median = 0;  // lognormal
  double sigma = 0;   // lognormal
  double mean = 0;    // exponential

  double sample(Rng& rng) const;
  // A sampled length: rounded, at least `floor`.
  std::int64_t sample_count(Rng& rng, std::int64_t floor = 1) const;
  double expected() const;  // before clamping

  static Distribution fixed(double v) {
    Distribution d;
    d.value = v;
    return d;
  }
};

// Its reader, parse_distribution, is the scenario reader's (sim/yaml_checks.hpp).

}  // namespace kvb
