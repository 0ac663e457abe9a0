#pragma once
// What decides a model's KV cache size and weight footprint: plain data, filled from the
// catalog (scenarios/models/*.yaml) or from a Hugging Face config.json.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvb {

enum class AttentionKind { kMhaGqa, kMla };

struct MlaDims {
  int kv_lora_rank = 0;      // latent width cached per token
  int qk_rope_head_dim = 0;  // decoupled RoPE key, cached per token
  int qk_nope_head_dim = 0;  // for the attention FLOP count only
  int v_head_dim = 0;
};

// Mamba2 state held per sequence per Mamba layer (no per-token KV).
struct MambaDims {
  int num_heads = 0;
  int head_dim = 0;
  int state_size = 0;  // ssm_state_size
  int n_groups = 1;
  int conv_kernel = 4;
};

struct ModelSpec {
  std::string name;  // canonical catalog name, or the config.json path
  std::vector<std::string> aliases;
  std::string hf_id;   // what `vllm serve` takes
  std::string source;  // where the numbers come from
  std::string architecture;

  int num_hidden_layers = 0;
  int hidden_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  AttentionKind attention = AttentionKind::kMhaGqa;
  MlaDims mla;
  bool sparse_mla = false;   // DSA: FlashMLA-sparse, fp8_ds_mla cache format
  int indexer_head_dim = 0;  // DSA indexer K cache, 0 = none

  // Layer mix. Full-attention layers = num_hidden_layers - sliding - mamba - mlp_only.
  int sliding_window = 0;  // tokens; 0 = none
  int sliding_layers = 0;
  int mamba_layers = 0;
  MambaDims mamba;
  int mlp_only_layers = 0;  // layers without attention or state (Nemotron-H MoE layers)
  int mtp_layers = 0;       // draft layers the checkpoint ships (MTP); not counted unless enabled

  double params_total_b = 0;  // billions
  double params_active_b = 0;
  std::string weight_dtype = "bf16";  // bf16, fp16, fp8, mxfp4, int4, awq, gptq
  std::string dtype = "bf16";         // activation / default KV dtype
  std::int64_t max_position_embeddings = 0;
  std::int64_t vocab_size = 0;
  int intermediate_size = 0;         // dense FFN width (config.json); 0 = not stated
  bool tie_word_embeddings = false;  // the LM head shares the input embedding's weights
  int num_experts = 0;
  int experts_per_token = 0;
  std::vector<std::string> notes;  // caveats shown with the sizing (soft facts, quirks)
  // How the model card serves contexts past max_position_embeddings (e.g. YaRN rope scaling);
  // named only when --max-model-len goes past it. Empty: no published extension.
  std::string context_extension;

  int full_attention_layers() const {
    return num_hidden_layers - sliding_layers - mamba_layers - mlp_only_layers;
  }
};

// Multiply-adds per (query, key) pair per attention layer: QK^T over d_qk and AV over d_v, all
// heads (MLA counts its decompressed nope + rope query width). Both prefill FLOP models use it.
double attention_macs_per_pair_layer(const ModelSpec& m);

// Parameters per layer left for the MLP out of `params_b` billions: less the embeddings (and an
// untied LM head) and each layer's attention projections (QKV + O). With the total parameters
// that is the dense FFN (3 x hidden x intermediate for SwiGLU); with the active ones, the experts
// a token uses. Used where config.json's width is not known or not the one a token sees.
double mlp_params_per_layer(const ModelSpec& m, double params_b);

// Bytes per parameter of a weight dtype name; throws UsageError for an unknown name.
double weight_bytes_per_param(const std::string& dtype);
// A config.json's torch_dtype (bfloat16, float16, float32) as kvbench spells it (bf16, fp16, fp32);
// UsageError "<where> is '<given>'; expected ..." for anything else (float8_e4m3fn, int8).
std::string checkpoint_dtype(const std::string& given, const std::string& where);
// 4-bit weight-only checkpoints (int4, awq, gptq): the linear layers quantized, 16-bit activations.
bool is_int4_weights(const std::string& dtype);

// Checks internal consistency (positive sizes, layer mix adds up); throws UsageError naming
// `origin` (a file or catalog entry) and the field at fault.
void validate_model(const ModelSpec& m, const std::string& origin);

}  // namespace kvb
