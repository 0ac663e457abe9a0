#pragma once
// Which GEMMs one transformer layer runs, per tensor-parallel rank, for a prefill of T tokens and
// for a decode step of B sequences at context C: what `kvbench calibrate` times. Dense
// full-attention (MHA/GQA) models only: the time model's efficiencies are a property of the GPU,
// and a dense layer of similar width measures them for any model.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/operator_timer.hpp"
#include "catalog/model_spec.hpp"

namespace kvb {

// The model's FFN width and where it came from: config.json's intermediate_size, else derived from
// the parameter count (`params_b`), worded by output/calibrate/calibrate_documents.
struct FfnWidth {
  std::int64_t total = 0;  // all ranks
  bool derived = false;
  double params_b = 0;
};

struct LayerShapes {
  std::int64_t hidden = 0;
  std::int64_t q_width = 0;   // query heads x head_dim on this rank
  std::int64_t kv_width = 0;  // KV heads x head_dim on this rank (replicated when heads < TP)
  std::int64_t ffn = 0;       // FFN width on this rank
  std::int64_t heads = 0;     // query heads on this rank
  std::int64_t kv_heads = 0;  // KV heads on this rank
  std::int64_t head_dim = 0;
  std::int64_t vocab = 0;  // LM head rows on this rank
  int layers = 0;
  FfnWidth ffn_width;
};

// Throws UsageError for a model calibrate cannot time (MoE, MLA, Mamba, sliding window) or a TP
// that does not divide the heads, naming the model and what to do instead.
LayerShapes layer_shapes(const ModelSpec& m, int tp);

// QKV, O, gate+up and down projections of one layer over `tokens` rows.
std::vector<GemmOp> linear_layer_ops(const LayerShapes& s, std::int64_t tokens);

// HBM bytes one layer's decode attention reads: each of `batch` sequences' K and V over its `context`
// keys plus the new token (bf16). vLLM's paged decode kernels (FlashAttention, FlashInfer) stream
// the KV cache once and are memory-bound, so calibrate models this read at the measured copy rate;
// timing it as cuBLAS batched GEMMs of `heads / kv_heads` rows was 2.2x slower than a real decode
// step at batch 64 on an H200 (reports/calibrations/h200-measured-calibrate.yaml, first GPU run).
double decode_attention_bytes(const LayerShapes& s, std::int64_t batch, std::int64_t context);

// The LM head over `rows` tokens (decode: every sequence; prefill: one).
GemmOp lm_head_op(const LayerShapes& s, std::int64_t rows);

// Causal attention FLOPs of one layer for a prefill of `tokens` from an empty context (QK^T and
// AV, 2 FLOPs per multiply-add): what flash attention computes, timed at the GEMMs' rate.
double prefill_attention_flops(const LayerShapes& s, std::int64_t tokens);

// HBM bytes of one layer's elementwise work per token (bf16): two RMSNorms, rotary on q and k,
// SiLU x up, two residual adds and the KV cache write; each reads its inputs and writes its output once.
double elementwise_bytes_per_token(const LayerShapes& s);

// Bytes of the operands of `ops` (one set), and the FLOPs of one pass.
double operand_bytes(const std::vector<GemmOp>& ops);
double operand_flops(const std::vector<GemmOp>& ops);

}  // namespace kvb
