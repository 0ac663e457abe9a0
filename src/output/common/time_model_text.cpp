#include "output/common/time_model_text.hpp"

#include <fmt/format.h>

namespace kvb {
namespace {

// The linear layers' kernel where it is not the tensor cores' own dtype, and attention's rate
// where it differs from theirs; empty for 16-bit weights.
std::string weight_gemm_text(const TimeModelTerms& t) {
  std::string out;
  if (t.gemm.kernel != GemmKernel::kNative) {
    out =
        t.gemm.dequant_known
            ? fmt::format(" (weight-only {}: {} at {:.2f} of the 16-bit {:.0f} TFLOP/s)", t.weight_dtype,
                          to_string(t.gemm.kernel), t.gemm.dequant_efficiency, t.gemm.peak_tflops)
            : fmt::format(
                  " (weight-only {} at the 16-bit rate: its dequantization cost is not modelled on this GPU)",
                  t.weight_dtype);
  }
  if (t.attention_rate_differs)
    out += fmt::format(" (attention at the 16-bit {:.0f} TFLOP/s)", t.attention_peak_tflops);
  return out;
}

// DP x EP: the MoE layers' all-to-all, or an all-reduce over every engine's ranks.
std::string expert_ranks_text(const TimeModelTerms& t) {
  if (t.expert_ranks <= 0) return "";
  if (t.fabric_raw_gbps <= 0) return " (MoE communication not modelled: the GPU fabric is unknown)";
  if (!t.all_to_all) {
    return fmt::format(" (routed experts split over {} ranks, their all-reduce over all {})", t.expert_ranks,
                       t.expert_ranks);
  }
  return fmt::format(
      " (routed experts split over EP {}) + per layer an all-to-all dispatch and combine of T x hidden x k x "
      "2 B, the {}/{} that leaves the rank, over {:.0f} GB/s x {:.2f} plus 2 x {:.1f} us",
      t.expert_ranks, t.expert_ranks - 1, t.expert_ranks, t.fabric_raw_gbps, t.fabric_efficiency,
      t.fabric_latency_us);
}

std::string tensor_parallel_text(const TimeModelTerms& t) {
  if (t.expert_ranks > 0) {
    const auto attention =
        t.tp <= 1 ? std::string()
                  : fmt::format(" + TP {} all-reduces: 1 per layer of T x hidden x 2 B (attention)", t.tp);
    return attention + expert_ranks_text(t);
  }
  if (t.tp <= 1) return "";
  if (t.fabric_raw_gbps <= 0) return " (TP communication not modelled: the GPU fabric is unknown)";
  return fmt::format(
      " + TP {} all-reduces: 2 per layer of T x hidden x 2 B over {:.0f} GB/s x {:.2f}, "
      "vLLM's custom one-shot (2 x {:.1f} us) where it serves the buffer, "
      "else two-shot or NCCL's ring ({} steps x {:.1f} us)",
      t.tp, t.fabric_raw_gbps, t.fabric_efficiency, t.fabric_latency_us, 2 * (t.tp - 1), t.fabric_latency_us);
}

std::string moe_fixed_text(const TimeModelTerms& t) {
  if (t.moe_fixed_us <= 0) return "";
  // The per-layer figure is fitted, not derived: say so and to what (perf/step_time_model.cpp).
  return fmt::format(
      " + {:.0f} us per step of MXFP4 MoE kernels (triton_kernels routing and matmul_ogs; 40 us a layer, "
      "fitted to gpt-oss-120b's InferenceMAX runs on H100)",
      t.moe_fixed_us);
}

}  // namespace

std::string time_model_text(const TimeModelTerms& t) {
  std::string attention =
      t.attention_efficiency ? fmt::format(" (attention FLOPs at x {:.2f})", *t.attention_efficiency) : "";
  if (t.gemm_half_tokens > 0)
    attention += fmt::format(" (GEMMs x T / (T + {:.0f}) for T tokens)", t.gemm_half_tokens);
  const std::string request =
      t.request_overhead_ms > 0
          ? fmt::format(" + {:.1f} ms per request outside the steps", t.request_overhead_ms)
          : "";
  return fmt::format(
      "roofline per TP rank: max(FLOPs / ({:.0f} TFLOP/s x {:.2f}){}, bytes / ({:.0f} GB/s x {:.2f})) + "
      "{:.0f} KiB of elementwise traffic per token at that HBM rate{} + "
      "{:.0f} us per step{}; {} weights {:.2f} GiB per rank; calibration: {}",
      t.linear_peak_tflops, t.compute_efficiency, attention + weight_gemm_text(t), t.hbm_gbps,
      t.memory_efficiency, t.activation_kib_per_token, tensor_parallel_text(t) + moe_fixed_text(t),
      t.step_overhead_us, request, t.weight_dtype, t.weight_gib_per_rank,
      calibration_origin_text(t.calibration));
}

std::string calibration_origin_text(const CalibrationOrigin& o) {
  switch (o.from) {
    case CalibrationFrom::kDefaults:
      return "defaults";
    case CalibrationFrom::kHardwareTable:
      return fmt::format("{} (fitted to {})", o.hardware, o.fitted_to);
    case CalibrationFrom::kFile:
      if (!o.measured) return o.file;
      return fmt::format("{} (kvbench calibrate on {}, {})", o.file,
                         o.device.empty() ? "an unnamed GPU" : o.device, o.model.empty() ? "?" : o.model);
    case CalibrationFrom::kCalibrate:
      return fmt::format("kvbench calibrate on {} ({})", o.device, o.model);
    case CalibrationFrom::kFromVllm:
      return fmt::format("kvbench calibrate --from-vllm ({} runs)", o.runs);
    case CalibrationFrom::kRecorded:
      break;
  }
  return o.text;
}

}  // namespace kvb
