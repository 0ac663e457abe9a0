#include "perf/weight_rules.hpp"

#include <algorithm>
#include <cmath>

#include "catalog/weight_format.hpp"

namespace kvb {

bool has_routed_experts(const ModelSpec& m) {
  return m.num_experts > m.experts_per_token && m.experts_per_token > 0 &&
         m.params_active_b < m.params_total_b;
}

namespace {

// One routed expert's parameters over all layers: P = dense + E x expert, A = dense + k x expert.
double expert_params(const ModelSpec& m) {
  return (m.params_total_b - m.params_active_b) / (m.num_experts - m.experts_per_token) * 1e9;
}

// MXFP4 quantizes the routed experts only (vLLM's Mxfp4Config gives FusedMoE layers Mxfp4MoEMethod
// and every linear layer UnquantizedLinearMethod, model_executor/layers/quantization/mxfp4.py):
// attention, embeddings, the LM head and the router stay 16-bit. Its MoE weights are created with
// the hidden dimension rounded up to a multiple of 256 (mxfp4.py create_weights, hidden_size =
// round_up(hidden_size, 256)); gpt-oss's 2,880 becomes 3,072. Counted on one of each expert
// matrix's two dimensions, this fits both vLLM logs of gpt-oss within 0.3% (64.44 against 64.38
// GiB, 13.44 against 13.47: config_explorer's empirical-vllm-memory-results.md, llm-d-benchmark).
bool experts_only(const std::string& weight_dtype) { return weight_format(weight_dtype).experts_only; }

double experts_only_bytes_per_param(const ModelSpec& m, const std::string& weight_dtype) {
  const double h = m.hidden_size;
  return weight_bytes_per_param(weight_dtype) * std::ceil(h / 256.0) * 256.0 / h;
}

}  // namespace

double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks) {
  if (experts_only(weight_dtype)) {
    const double experts = has_routed_experts(m) ? m.num_experts * expert_params(m) : 0.0;
    return ((m.params_total_b * 1e9 - experts) * 2.0 +
            experts * experts_only_bytes_per_param(m, weight_dtype)) /
           ranks;
  }
  if (weight_format(weight_dtype).linear_only) {
    // AWQ, GPTQ, FP8, NVFP4, compressed-tensors and bitsandbytes quantize the linear layers only:
    // the input embedding and the LM head (one matrix when tie_word_embeddings) stay 16-bit (the
    // LM head is in the ignore / exclude_modules / modules_to_not_convert list of the checkpoints).
    // Qwen2.5-7B-AWQ: 5.19 GiB, not 3.55; Llama-3.3-70B-Instruct-FP8-dynamic at TP 2: 33.83 GiB a rank (vLLM
    // logged 33.88), not 32.88.
    const double embed = static_cast<double>(m.vocab_size) * m.hidden_size * (m.tie_word_embeddings ? 1 : 2);
    const double quantized = std::max(0.0, m.params_total_b * 1e9 - embed);
    return (quantized * weight_bytes_per_param(weight_dtype) +
            std::min(embed, m.params_total_b * 1e9) * 2.0) /
           ranks;
  }
  return m.params_total_b * 1e9 * weight_bytes_per_param(weight_dtype) / ranks;
}

double weight_bytes_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks,
                             int expert_ranks) {
  if (!has_routed_experts(m) || expert_ranks == ranks) return weight_bytes_per_rank(m, weight_dtype, ranks);
  // The experts' bytes at the format's rate for them; the rest is what the whole model leaves.
  const double per_param = experts_only(weight_dtype) ? experts_only_bytes_per_param(m, weight_dtype)
                                                      : weight_bytes_per_param(weight_dtype);
  const double experts = m.num_experts * expert_params(m) * per_param;
  const double dense = weight_bytes_per_rank(m, weight_dtype, 1) - experts;
  return dense / ranks + experts / expert_ranks;
}

WeightReads weight_reads_per_rank(const ModelSpec& m, const std::string& weight_dtype, int ranks,
                                  int expert_ranks) {
  WeightReads w;
  if (!has_routed_experts(m)) {
    w.dense_bytes = weight_bytes_per_rank(m, weight_dtype, ranks);
    return w;
  }
  if (expert_ranks <= 0) expert_ranks = ranks;
  const double expert = expert_params(m);
  const double dense = m.params_active_b * 1e9 - m.experts_per_token * expert;
  if (experts_only(weight_dtype)) {
    w.expert_bytes = expert * experts_only_bytes_per_param(m, weight_dtype) / expert_ranks;
    w.dense_bytes = dense * 2.0 / ranks;
  } else {
    // Every parameter at the model's average bytes per parameter.
    const double bytes_per_param = weight_bytes_per_rank(m, weight_dtype, 1) / (m.params_total_b * 1e9);
    w.expert_bytes = expert * bytes_per_param / expert_ranks;
    w.dense_bytes = dense * bytes_per_param / ranks;
  }
  w.experts = m.num_experts;
  w.experts_per_token = m.experts_per_token;
  return w;
}

double experts_touched(int experts, int experts_per_token, double tokens) {
  const double e = experts;
  return e * (1.0 - std::pow(1.0 - experts_per_token / e, std::max(tokens, 1.0)));
}

double WeightReads::bytes_for_tokens(std::int64_t tokens) const {
  if (experts == 0) return dense_bytes;
  return dense_bytes +
         experts_touched(experts, experts_per_token, static_cast<double>(tokens)) * expert_bytes;
}

// Which tensor cores a weight format's GEMMs run on, after vLLM's kernel selection:
// - fp8 (W8A8): FP8 tensor cores where the GPU has them (Ada, Hopper, Blackwell, MI300: vLLM's
//   Fp8LinearMethod, cutlass_scaled_mm); without them (Ampere) vLLM runs the weights weight-only
//   through the FP8 Marlin kernel ("Weight-only FP8 compression will be used leveraging the Marlin
//   kernel", vllm/model_executor/layers/quantization/fp8.py): the 16-bit rate.
// - mxfp4 (gpt-oss): Hopper and older have no FP4 tensor cores; vLLM's MXFP4 path there
//   (quantization/mxfp4.py: triton matmul_ogs or Marlin) dequantizes to BF16 and computes at the
//   16-bit rate. On FP4-capable GPUs (Blackwell, MI355X) the weights meet activations quantized to
//   8 bits (FlashInfer's MXFP4 x MXFP8 MoE): the FP8 rate, not the FP4 one (an assumption: both
//   operands would have to be FP4 for it).
// - nvfp4 (ModelOpt, compressed-tensors W4A4): both operands FP4 on GPUs with FP4 tensor cores
//   (cutlass_scaled_fp4_mm, quantization/modelopt.py); elsewhere weight-only through NVFP4 Marlin.
// - integer formats (int4, awq, gptq, int<B>, bnb-*): weight-only (Marlin, Machete, bitsandbytes'
//   own kernels): dequantized to 16 bits, the 16-bit rate. (A W8A8 int8 checkpoint runs INT8
//   tensor cores in vLLM; kvbench times it at the 16-bit rate, the slower bound.)
// The dequantization's own cost: weight_gemm below.
double peak_tflops(const HardwareSpec& hw, const std::string& weight_dtype) {
  if (weight_dtype == "fp8" && hw.fp8_tflops > 0) return hw.fp8_tflops;
  if (weight_dtype == "mxfp4" && hw.fp4_tflops > 0 && hw.fp8_tflops > 0) return hw.fp8_tflops;
  if (weight_dtype == "nvfp4" && hw.fp4_tflops > 0) return hw.fp4_tflops;
  return hw.bf16_tflops;
}

std::string to_string(GemmKernel k) {
  switch (k) {
    case GemmKernel::kMarlin:
      return "Marlin";
    case GemmKernel::kMachete:
      return "Machete";
    case GemmKernel::kWeightOnly:
      return "a weight-only kernel";
    case GemmKernel::kNative:
      break;
  }
  return "native";
}

namespace {

bool weight_only(const HardwareSpec& hw, const std::string& weight_dtype) {
  switch (weight_format(weight_dtype).compute) {
    case WeightCompute::kWeightOnly:
      return true;
    case WeightCompute::kFp8:
      return hw.fp8_tflops <= 0;
    case WeightCompute::kMxfp4:
      return hw.fp4_tflops <= 0 || hw.fp8_tflops <= 0;
    case WeightCompute::kNvfp4:
      return hw.fp4_tflops <= 0;
    case WeightCompute::k16Bit:
      break;
  }
  return false;
}

// What a weight-only GEMM keeps of the 16-bit rate when compute-bound (large batches, prefill):
// - Ampere, Ada, RTX Blackwell: Marlin on mma.sync, these cards' full tensor-core path. 0.93: vLLM's
//   Marlin layer against cuBLAS FP16 on an A10, M = 512 to 8,192 on the large layer shapes, 0.92 to
//   0.94 (63.9 vs 68-69 TFLOP/s; robertgshaw2-neuralmagic/vllm-benchmarking, layer_benchmarking/
//   results_a10); the Marlin paper's summary gives about 10% slower than FP16 at >= 1,024 tokens
//   (IST-DASLab/marlin, arXiv 2408.11743).
// - Hopper: GPTQ goes through vLLM's mixed-precision kernel choice, Machete first on SM90
//   (model_executor/layers/quantization/kernels/mixed_precision/__init__.py, "in priority/performance
//   order"); Machete "matches" FP16 when compute-bound (Neural Magic's Machete post, Oct 2024; vLLM
//   PR #7174), taken as 0.95; compressed-tensors' WNA16 scheme goes through the same choice
//   (compressed_tensors_wNa16.py, choose_mp_linear_kernel). AWQ checkpoints (and kvbench's generic int4) run
//   AWQ-Marlin (awq_marlin.py calls the Marlin GEMM directly) and MXFP4 Marlin or Triton's matmul_ogs
//   (quantization/mxfp4.py): Marlin's mma.sync reaches "at best ~75% of peak" on Hopper (vLLM PR #7174),
//   0.75.
// - Datacenter Blackwell: no Machete (SM90 only) and Marlin on mma.sync, as on Hopper: 0.75, an
//   assumption (no published Marlin figure on SM100).
// - AMD and unknown architectures: no published figure; not modelled (1). Nor bitsandbytes, whose
//   own dequantizing kernels (bitsandbytes.py: matmul, matmul_4bit) have no published rate here.
WeightGemm dequantizing(const HardwareSpec& hw, const std::string& weight_dtype) {
  WeightGemm g;
  g.peak_tflops = hw.bf16_tflops;
  g.kernel = GemmKernel::kMarlin;
  const IntKernel family = weight_format(weight_dtype).kernel;
  const bool machete = family == IntKernel::kGptq || family == IntKernel::kCompressedTensors;
  const GpuArch arch = family == IntKernel::kBitsAndBytes ? GpuArch::kUnknown : hw.arch;
  switch (arch) {
    case GpuArch::kAmpere:
    case GpuArch::kAda:
    case GpuArch::kBlackwellRtx:
      g.dequant_efficiency = 0.93;
      break;
    case GpuArch::kHopper:
      if (machete) {
        g.kernel = GemmKernel::kMachete;
        g.dequant_efficiency = 0.95;
      } else {
        g.dequant_efficiency = 0.75;
      }
      break;
    case GpuArch::kBlackwell:
      g.dequant_efficiency = 0.75;
      break;
    case GpuArch::kCdna3:
    case GpuArch::kCdna4:
    case GpuArch::kUnknown:
      g.kernel = GemmKernel::kWeightOnly;
      g.dequant_known = false;
      break;
  }
  return g;
}

}  // namespace

WeightGemm weight_gemm(const HardwareSpec& hw, const std::string& weight_dtype) {
  if (weight_only(hw, weight_dtype)) return dequantizing(hw, weight_dtype);
  WeightGemm g;
  g.peak_tflops = peak_tflops(hw, weight_dtype);
  return g;
}

}  // namespace kvb
