#include "catalog/model_spec.hpp"

#include <fmt/format.h>

#include "catalog/weight_format.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"

namespace kvb {

double attention_macs_per_pair_layer(const ModelSpec& m) {
  const bool mla = m.attention == AttentionKind::kMla;
  const double d_qk = mla ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim : m.head_dim;
  const double d_v = mla ? m.mla.v_head_dim : m.head_dim;
  return m.num_attention_heads * (d_qk + d_v);
}

double mlp_params_per_layer(const ModelSpec& m, double params_b) {
  if (m.num_hidden_layers <= 0) return 0;
  const double h = m.hidden_size, d = m.head_dim;
  const double attention = h * d * (2.0 * m.num_attention_heads + 2.0 * m.num_kv_heads);
  const double embeddings = static_cast<double>(m.vocab_size) * h * (m.tie_word_embeddings ? 1 : 2);
  return (params_b * 1e9 - embeddings) / m.num_hidden_layers - attention;
}

bool is_int4_weights(const std::string& dtype) {
  const auto f = weight_format(dtype);
  return f.compute == WeightCompute::kWeightOnly && f.bits_per_param > 4 && f.bits_per_param < 5;
}

double weight_bytes_per_param(const std::string& dtype) { return weight_format(dtype).bits_per_param / 8; }

std::string checkpoint_dtype(const std::string& given, const std::string& where) {
  if (given == "bfloat16") return "bf16";
  if (given == "float16") return "fp16";
  if (given == "float32") return "fp32";
  // FP8 or int8 weights are stated in quantization_config; torch_dtype is what activations take.
  throw UsageError(
      fmt::format("{} is '{}'; expected bfloat16, float16 or float32 (quantized weights are read from "
                  "quantization_config)",
                  where, given));
}

void validate_model(const ModelSpec& m, const std::string& origin) {
  auto need = [&](bool ok, const char* field, const std::string& expected) {
    if (!ok) throw UsageError(fmt::format("{}: field '{}' is invalid; expected {}", origin, field, expected));
  };
  need(m.num_hidden_layers > 0, "num_hidden_layers", "a positive layer count");
  need(m.hidden_size > 0, "hidden_size", "a positive width");
  need(m.num_attention_heads > 0, "num_attention_heads", "a positive head count");
  if (m.attention == AttentionKind::kMhaGqa) {
    need(m.num_kv_heads > 0, "num_key_value_heads", "a positive head count");
    need(m.num_attention_heads % m.num_kv_heads == 0, "num_key_value_heads",
         "a divisor of num_attention_heads");
    need(m.head_dim > 0, "head_dim", "a positive head width");
  } else {
    need(m.mla.kv_lora_rank > 0, "kv_lora_rank", "a positive MLA latent width");
    need(m.mla.qk_rope_head_dim >= 0, "qk_rope_head_dim", "a non-negative width");
  }
  need(m.sliding_layers >= 0 && m.mamba_layers >= 0 && m.mlp_only_layers >= 0, "layer mix",
       "non-negative layer counts");
  need(m.full_attention_layers() >= 0, "layer mix",
       "sliding + mamba + mlp-only layers not exceeding num_hidden_layers");
  need(m.full_attention_layers() + m.sliding_layers > 0 || m.mamba_layers > 0, "layer mix",
       "at least one attention or Mamba layer");
  need(m.sliding_layers == 0 || m.sliding_window > 0, "sliding_window",
       "a positive window when sliding layers exist");
  need(m.mamba_layers == 0 || (m.mamba.num_heads > 0 && m.mamba.head_dim > 0 && m.mamba.state_size > 0),
       "mamba", "positive mamba_num_heads, mamba_head_dim and ssm_state_size");
  need(m.params_total_b > 0, "params_total_b", "a positive parameter count");
  need(m.params_active_b > 0 && m.params_active_b <= m.params_total_b, "params_active_b",
       "a positive count not above params_total_b");
  // The --max-model-len flag's own limit: KV bytes of a longer context overflow 64-bit counts.
  need(m.max_position_embeddings > 0 && m.max_position_embeddings <= kMaxTokens, "max_position_embeddings",
       "a positive length of at most 10^12 tokens");
  (void)weight_bytes_per_param(m.weight_dtype);
}

}  // namespace kvb
