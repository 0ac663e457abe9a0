#include "perf/weight_rules.hpp"

namespace kvb {

double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks) {
  return m.params_total_b * 1e9 * weight_bytes_per_param(weight_dtype) / ranks;
}

bool computes_in_fp8(const std::string& weight_dtype) { return weight_dtype == "fp8" || weight_dtype == "mxfp4"; }

double peak_tflops(const HardwareSpec& hw, const std::string& weight_dtype) {
  return computes_in_fp8(weight_dtype) ? hw.fp8_tflops : hw.bf16_tflops;
}

}  // namespace kvb
