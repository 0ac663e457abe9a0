#pragma once
// How a weight dtype turns into bytes and into a FLOP rate, in one place for the memory budget,
// the recompute estimate and the simulator's step time.
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"

namespace kvb {

// Bytes of weights one rank holds, split evenly over `ranks` (tensor x pipeline parallel), per
// tensor class as vLLM loads the format: MXFP4 the routed experts only (the rest 16-bit); FP8,
// AWQ and GPTQ the linear layers (embeddings and LM head 16-bit); 16-bit formats everything.
double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks);
// The same with the routed experts split over `expert_ranks` and the rest over `ranks`: under
// data parallelism each engine holds its own attention and dense layers (split by TP x PP) while
// a MoE layer spans every DP x TP rank, as an EP group of DP x TP (whole experts per rank) or,
// without --enable-expert-parallel, a TP group of DP x TP (a slice of each): the bytes are the
// same (vLLM's FusedMoEParallelConfig, model_executor/layers/fused_moe/config.py).
double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks,
                             int expert_ranks);
// Whether the model has routed experts (E > k > 0, fewer active parameters than total).
bool has_routed_experts(const ModelSpec& m);

// Mixture-of-experts weights one step reads, per rank: the dense part (attention, shared experts,
// embeddings) plus the routed experts the step's tokens select. n tokens each choosing k of E
// experts touch E * (1 - (1 - k/E)^n) distinct experts per layer on average (uniform routing), so
// a batch of 1 reads the active parameters and a long prefill reads them all. Dense models: all.
struct WeightReads {
  double dense_bytes = 0;     // per rank, read every step
  double expert_bytes = 0;    // per rank, one routed expert across all layers
  int experts = 0;            // E (0: a dense model)
  int experts_per_token = 0;  // k
  double bytes_for_tokens(std::int64_t tokens) const;
};
// `expert_ranks` (0: `ranks`): the ranks a MoE layer's routed experts are split over (DP x TP x PP).
WeightReads weight_reads_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks,
                                  int expert_ranks = 0);

// Expected distinct experts (of E, per layer) that `tokens` tokens each routing to k of them touch:
// E * (1 - (1 - k/E)^T). Assumes uniform, independent routing (each token's k picks a uniform
// sample; a load-balanced router's aim): a skewed router touches fewer. At most min(E, T x k).
double experts_touched(int experts, int experts_per_token, double tokens);

// Dense peak of one GPU for this weight dtype as vLLM runs it (weight-only formats at the 16-bit
// rate; the rule per GPU and format, with its sources, in the .cpp), TFLOP/s.
double peak_tflops(const HardwareSpec& hw, const std::string& weight_dtype);

// The kernel vLLM runs a weight format's linear layers with on a GPU: the tensor cores' own dtype
// (kNative: 16-bit, FP8 W8A8, MXFP4 x MXFP8), or a weight-only kernel that dequantizes the weights
// to 16 bits inside the GEMM (Marlin, Machete; kWeightOnly: another one, whose cost is not known).
enum class GemmKernel { kNative, kMarlin, kMachete, kWeightOnly };
std::string to_string(GemmKernel k);

struct WeightGemm {
  double peak_tflops = 0;  // the tensor cores' dense rate the GEMMs compute at (peak_tflops above)
  GemmKernel kernel = GemmKernel::kNative;
  // Share of that rate a compute-bound GEMM keeps after the dequantization (1 for kNative); weight
  // reads at small batches are unchanged (the bytes are the quantized ones).
  double dequant_efficiency = 1.0;
  // false: a weight-only format on a GPU with no published figure (AMD, a file without gpu_arch):
  // taken as 1, and the time model says it is not modelled.
  bool dequant_known = true;
  double linear_tflops() const { return peak_tflops * dequant_efficiency; }
};
WeightGemm weight_gemm(const HardwareSpec& hw, const std::string& weight_dtype);

}  // namespace kvb
