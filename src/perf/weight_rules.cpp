#include "perf/weight_rules.hpp"

#include <algorithm>
#include <cmath>

namespace kvb {

double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks) {
  if (weight_dtype == "int4" || weight_dtype == "awq" || weight_dtype == "gptq") {
    // AWQ and GPTQ quantize the linear layers only: the input embedding and the LM head (one
    // matrix when tie_word_embeddings) stay 16-bit. Qwen2.5-7B-AWQ: 5.19 GiB, not 3.55.
    const double embed = static_cast<double>(m.vocab_size) * m.hidden_size * (m.tie_word_embeddings ? 1 : 2);
    const double quantized = std::max(0.0, m.params_total_b * 1e9 - embed);
    return (quantized * weight_bytes_per_param(weight_dtype) +
            std::min(embed, m.params_total_b * 1e9) * 2.0) /
           ranks;
  }
  return m.params_total_b * 1e9 * weight_bytes_per_param(weight_dtype) / ranks;
}

WeightReads weight_reads_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks) {
  WeightReads w;
  const double total = weight_bytes_per_rank(m, weight_dtype, ranks);
  const int e = m.num_experts;
  const int k = m.experts_per_token;
  if (e <= 0 || k <= 0 || e <= k || m.params_active_b >= m.params_total_b) {
    w.dense_bytes = total;
    return w;
  }
  // P = dense + E x expert and A = dense + k x expert, in parameters; the same split in bytes.
  const double bytes_per_b = total / m.params_total_b;
  const double expert_b = (m.params_total_b - m.params_active_b) / (e - k);
  w.expert_bytes = expert_b * bytes_per_b;
  w.dense_bytes = (m.params_active_b - k * expert_b) * bytes_per_b;
  w.experts = e;
  w.experts_per_token = k;
  return w;
}

double WeightReads::bytes_for_tokens(std::int64_t tokens) const {
  if (experts == 0) return dense_bytes;
  const double e = experts;
  const double touched = e * (1.0 - std::pow(1.0 - experts_per_token / e,
                                             static_cast<double>(std::max<std::int64_t>(tokens, 1))));
  return dense_bytes + touched * expert_bytes;
}

bool computes_in_fp8(const std::string& weight_dtype) {
  return weight_dtype == "fp8" || weight_dtype == "mxfp4";
}

double peak_tflops(const HardwareSpec& hw, const std::string& weight_dtype) {
  return computes_in_fp8(weight_dtype) ? hw.fp8_tflops : hw.bf16_tflops;
}

}  // namespace kvb
