#include "perf/activation_traffic.hpp"

#include <algorithm>

namespace kvb {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16/fp16 activations, whatever the weights' format

// Elements per token and layer of a SwiGLU MLP's gate and up outputs plus their product (3 x the
// MLP's active width), from the parameters a token uses: the active parameters less the
// embeddings and the attention projections, per layer, over the hidden size.
double mlp_elements(const ModelSpec& m) {
  const double h = m.hidden_size;
  const double q = static_cast<double>(m.num_attention_heads) * m.head_dim;
  const double kv = static_cast<double>(m.num_kv_heads) * m.head_dim;
  const double embeddings = static_cast<double>(m.vocab_size) * h * (m.tie_word_embeddings ? 1 : 2);
  const double attention = h * (q + 2 * kv) + q * h;
  const double per_layer = (m.params_active_b * 1e9 - embeddings) / m.num_hidden_layers;
  return std::max(0.0, per_layer - attention) / h;
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
