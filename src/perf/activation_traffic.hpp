#pragma once
// The HBM traffic of a step's elementwise kernels. Between its GEMMs a transformer layer runs
// kernels that only read and write activations: two residual-add + RMSNorms (vLLM's
// fused_add_rms_norm, csrc/layernorm_kernels.cu), rotary embedding of the queries and keys
// (csrc/pos_encoding_kernels.cu) and the gated activation of the MLP (silu_and_mul,
// csrc/activation_kernels.cu), or torch.compile's fused equivalents, which move the same bytes.
// They run one after another with the GEMMs, not beside them, and are bound by HBM bandwidth,
// so they add to a step's time in proportion to its tokens: about 16% of a long prefill step of
// Llama-3.1-8B on an H100, the weights' read being what dominates a decode step.
#include "catalog/model_spec.hpp"

namespace kvb {

// Bytes one tensor-parallel rank reads and writes per token through all layers, 16-bit
// activations: 8 x hidden for the two norms (read the input and the residual, write both; every
// rank holds the whole hidden state), 2 x (query + key width) / TP for the rotary embedding (read
// and write), and 3 x the MLP's active width / TP for the gated activation (read gate and up,
// write their product). The MLP width is what the active parameters leave after the embeddings
// and the attention projections (3 x intermediate for a dense SwiGLU MLP; the routed and shared
// experts a token uses for a mixture of experts).
double activation_bytes_per_token(const ModelSpec& m, int tp);

}  // namespace kvb
