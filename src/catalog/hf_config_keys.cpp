#include "catalog/hf_config_keys.hpp"

namespace kvb {

const std::set<std::string>& config_keys_without_kv_effect() {
  // RoPE, normalisation, dropout and bias settings; the router's training-time knobs; Mamba's
  // activation and step-size bounds: none of them sizes or shapes a KV block.
  static const std::set<std::string> keys = {"rope_scaling",
                                             "rope_theta",
                                             "attention_dropout",
                                             "attention_bias",
                                             "initializer_range",
                                             "rms_norm_eps",
                                             "layer_norm_epsilon",
                                             "layer_norm_eps",
                                             "head_bias",
                                             "mlp_bias",
                                             "use_cache",
                                             "norm_topk_prob",
                                             "output_router_logits",
                                             "router_aux_loss_coef",
                                             "routed_scaling_factor",
                                             "scoring_func",
                                             "topk_method",
                                             "topk_group",
                                             "n_group",
                                             "ep_size",
                                             "moe_layer_freq",
                                             "aux_loss_alpha",
                                             "seq_aux",
                                             "hidden_act",
                                             "pretraining_tp",
                                             "attn_logit_softcapping",
                                             "query_pre_attn_scalar",
                                             "rope_interleave",
                                             "qk_layernorm",
                                             "use_qk_norm",
                                             "partial_rotary_factor",
                                             "rope_parameters",
                                             "attention_chunk_size",
                                             "decoder_sparse_step",
                                             "mlp_only_layers",
                                             "shared_expert_intermediate_size",
                                             "moe_router_enable_expert_bias",
                                             "rescale_prenorm_residual",
                                             "residual_in_fp32",
                                             "mamba_hidden_act",
                                             "mamba_proj_bias",
                                             "mamba_conv_bias",
                                             "chunk_size",
                                             "time_step_min",
                                             "time_step_max",
                                             "time_step_floor",
                                             "time_step_limit",
                                             "ssm_state_dtype"};
  return keys;
}

}  // namespace kvb
