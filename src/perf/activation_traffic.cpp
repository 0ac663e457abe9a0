#include "perf/activation_traffic.hpp"

#include <algorithm>

namespace kvb {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16/fp16 activations, whatever the weights' format

// Elements per token and layer of a SwiGLU MLP's gate and up outputs plus their product (3 x the
// MLP's active width): the MLP parameters a token uses, over the hidden size.
double mlp_elements(const ModelSpec& m) {
  return std::max(0.0, mlp_params_per_layer(m, m.params_active_b)) / m.hidden_size;
}

}  // namespace

double activation_bytes_per_token(const ModelSpec& m, int tp) {
  if (m.num_hidden_layers <= 0 || m.hidden_size <= 0 || tp <= 0) return 0;
  const double h = m.hidden_size;
  const double q = static_cast<double>(m.num_attention_heads) * m.head_dim;
  const double kv = static_cast<double>(m.num_kv_heads) * m.head_dim;
  const double per_layer = 8 * h + (2 * (q + kv) + mlp_elements(m)) / tp;
  return kActivationBytes * m.num_hidden_layers * per_layer;
}

}  // namespace kvb
