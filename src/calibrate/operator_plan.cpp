#include "calibrate/operator_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"

namespace kvb {
namespace {

std::int64_t per_rank(std::int64_t total, int tp) { return (total + tp - 1) / tp; }

// FFN width from the parameter count when config.json's is not in the catalog: three FFN
// matrices of hidden x width a layer.
std::int64_t derived_ffn(const ModelSpec& m) {
  const double width = mlp_params_per_layer(m, m.params_total_b) / (3.0 * m.hidden_size);
  // Published widths are multiples of 256.
  return std::max<std::int64_t>(256, static_cast<std::int64_t>(std::llround(width / 256.0)) * 256);
}

}  // namespace

LayerShapes layer_shapes(const ModelSpec& m, int tp) {
  std::string why;
  if (m.num_experts > 0)
    why = "mixture-of-experts";
  else if (m.attention == AttentionKind::kMla)
    why = "multi-head latent attention";
  else if (m.mamba_layers > 0)
    why = "Mamba layers";
  else if (m.sliding_layers > 0)
    why = "sliding-window layers";
  else if (m.mlp_only_layers > 0)
    why = "MLP-only layers";
  if (!why.empty()) {
    throw UsageError(
        fmt::format("--model {}: calibrate times dense full-attention layers and {} has {}; the "
                    "efficiencies it fits belong to the GPU, so calibrate a dense model of similar width "
                    "(e.g. llama-3.1-8b or llama-3.1-70b) and pass the file to --calibration",
                    m.name, m.name, why));
  }
  if (tp < 1) throw UsageError(fmt::format("--tp {}: expected a rank count of at least 1", tp));
  if (m.num_attention_heads % tp != 0) {
    throw UsageError(
        fmt::format("--tp {}: must divide {}'s {} attention heads", tp, m.name, m.num_attention_heads));
  }
  LayerShapes s;
  s.hidden = m.hidden_size;
  s.head_dim = m.head_dim;
  s.heads = m.num_attention_heads / tp;
  s.kv_heads = std::max<std::int64_t>(1, m.num_kv_heads / tp);
  s.q_width = s.heads * s.head_dim;
  s.kv_width = s.kv_heads * s.head_dim;
  s.layers = m.num_hidden_layers;
  const std::int64_t ffn = m.intermediate_size > 0 ? m.intermediate_size : derived_ffn(m);
  s.ffn_width = {.total = ffn, .derived = m.intermediate_size <= 0, .params_b = m.params_total_b};
  s.ffn = per_rank(ffn, tp);
  s.vocab = per_rank(std::max<std::int64_t>(m.vocab_size, 1), tp);
  return s;
}

std::vector<GemmOp> linear_layer_ops(const LayerShapes& s, std::int64_t tokens) {
  return {
      {"qkv", tokens, s.q_width + 2 * s.kv_width, s.hidden, 1, GemmOp::Form::kLinear},
      {"o", tokens, s.hidden, s.q_width, 1, GemmOp::Form::kLinear},
      {"gate_up", tokens, 2 * s.ffn, s.hidden, 1, GemmOp::Form::kLinear},
      {"down", tokens, s.hidden, s.ffn, 1, GemmOp::Form::kLinear},
  };
}

double decode_attention_bytes(const LayerShapes& s, std::int64_t batch, std::int64_t context) {
  const double keys = static_cast<double>(context + 1);  // the new token attends to itself too
  return static_cast<double>(batch) * keys * 2.0 * static_cast<double>(s.kv_width) * 2.0;  // K and V, bf16
}

GemmOp lm_head_op(const LayerShapes& s, std::int64_t rows) {
  return {"lm_head", rows, s.vocab, s.hidden, 1, GemmOp::Form::kLinear};
}

double prefill_attention_flops(const LayerShapes& s, std::int64_t tokens) {
  const double t = static_cast<double>(tokens);
  const double pairs = t * (t + 1) / 2;  // token p attends to p + 1 keys
  return 2.0 * 2.0 * static_cast<double>(s.heads * s.head_dim) * pairs;
}

double elementwise_bytes_per_token(const LayerShapes& s) {
  const double h = static_cast<double>(s.hidden), q = static_cast<double>(s.q_width);
  const double kv = static_cast<double>(s.kv_width), f = static_cast<double>(s.ffn);
  const double elements = 2 * (2 * h)      // RMSNorm x2: read h, write h
                          + 2 * (q + kv)   // rotary on q and k: read, write
                          + 3 * f          // SiLU(gate) x up: read 2f, write f
                          + 2 * (3 * h)    // residual add x2: read 2h, write h
                          + 2 * (2 * kv);  // K and V into the cache: read, write
  return 2.0 * elements;
}

double operand_bytes(const std::vector<GemmOp>& ops) {
  double b = 0;
  for (const auto& op : ops) b += op.bytes();
  return b;
}

double operand_flops(const std::vector<GemmOp>& ops) {
  double f = 0;
  for (const auto& op : ops) f += op.flops();
  return f;
}

}  // namespace kvb
