#include "perf/step_time_model.hpp"

#include <algorithm>

#include "perf/activation_traffic.hpp"
#include "perf/all_reduce.hpp"
#include "perf/weight_rules.hpp"

namespace kvb {
namespace {

// Share of an NVLink or Infinity Fabric datasheet figure a ring all-reduce is assumed to reach (bus
// bandwidth); an assumption, neither measured here nor fitted (no TP > 1 vLLM run scored). A PCIe
// card's gpu_link_gbps is already the bus bandwidth NCCL reaches over PCIe (the hardware file's
// source), taken whole.
constexpr double kFabricEfficiency = 0.75;

// MXFP4 experts on Hopper: a fixed time per MoE layer and step beside the roofline. vLLM runs them
// through triton_kernels (get_mxfp4_backend: TRITON on SM90 where triton_kernels is installed, else
// Marlin; quantization/mxfp4.py), whose every MoE layer launches a chain of kernels whatever the
// batch: top-k, the routing's sort of tokens to experts (triton_kernels routing), and two
// matmul_ogs grouped GEMMs, the first with the SwiGLU fused, the second scattering and weighting
// the rows back (fused_moe/gpt_oss_triton_kernels_moe.py). At decode sizes their time is launch and
// ramp, not bytes or FLOPs. 40 us is set from one model: gpt-oss-120b's InferenceMAX 1K/1K runs at
// 4 in flight, whose steps at TP 2, 4 and 8 keep 1.42-1.62 ms once the weights and all-reduces are
// paid (36 layers); every other run is held out (docs/accuracy.md). Marlin (A100) and the BF16/FP8
// fused_moe path are not charged: Mixtral-8x7B's TP 2 runs show no such cost (charged, their E2E
// error went from 2% to 9%), and gpt-oss on the A100 is already slow without it.
constexpr double kMxfp4TritonLayerSeconds = 40e-6;

bool runs_mxfp4_triton(const ModelSpec& m, const HardwareSpec& hw, const std::string& weight_dtype) {
  return m.num_experts > 0 && weight_dtype == "mxfp4" && hw.arch == GpuArch::kHopper;
}

double fabric_efficiency(const HardwareSpec& hw) {
  return hw.gpu_link_kind == GpuLinkKind::kPcie ? 1.0 : kFabricEfficiency;
}

}  // namespace

void StepWork::add(std::int64_t start, std::int64_t n, int sliding_window) {
  const double s = static_cast<double>(start);
  const double k = static_cast<double>(n);
  tokens += n;
  // Token at position p attends to p + 1 keys (itself included): sum over p in [s, s + n).
  full_attention_pairs += k * s + k * (k + 1) / 2;
  if (sliding_window > 0) {
    double pairs = 0;
    const double w = sliding_window;
    // Positions below the window attend to p + 1 keys, the rest to w.
    const double below_end = std::min(s + k, w);
    if (below_end > s) pairs += (below_end - s) * (s + below_end + 1) / 2;
    pairs += std::max(0.0, s + k - std::max(s, w)) * w;
    sliding_attention_pairs += pairs;
  }
  kv_tokens_touched += s + k;
}

StepTimeModel::StepTimeModel(const ModelSpec& m, const HardwareSpec& hw, double kv_bytes_per_token, int tp,
                             const std::string& weight_dtype, const Calibration& calibration)
    : tp_(tp), expert_ranks_(tp), cal_(calibration), weight_dtype_(weight_dtype) {
  // QK^T and AV: 2 FLOPs per multiply-add, per head, per layer.
  const double per_pair_layer = 2.0 * attention_macs_per_pair_layer(m);
  full_pair_flops_ = per_pair_layer * m.full_attention_layers();
  sliding_pair_flops_ = per_pair_layer * m.sliding_layers;
  sliding_window_ = m.sliding_layers > 0 ? m.sliding_window : 0;
  linear_flops_per_token_ = 2.0 * m.params_active_b * 1e9;
  if (m.num_experts > m.experts_per_token && m.experts_per_token > 0 &&
      m.params_active_b < m.params_total_b) {
    // P = dense + E x expert, A = dense + k x expert (perf/weight_rules.cpp): the routed experts'
    // share of a token's FLOPs; E and k give the tokens each touched expert's GEMM gets.
    const double expert_b = (m.params_total_b - m.params_active_b) / (m.num_experts - m.experts_per_token);
    expert_flops_per_token_ = 2.0 * m.experts_per_token * expert_b * 1e9;
    experts_ = m.num_experts;
    experts_per_token_ = m.experts_per_token;
  }
  weight_bytes_ = weight_bytes_per_rank(m, weight_dtype, tp);
  weight_reads_ = weight_reads_per_rank(m, weight_dtype, tp);
  kv_bytes_per_token_ = kv_bytes_per_token;
  activation_bytes_per_token_ = activation_bytes_per_token(m, tp);
  gemm_ = weight_gemm(hw, weight_dtype);
  linear_peak_flops_ = gemm_.linear_tflops() * 1e12;
  // Attention multiplies activations by KV in 16 bits whatever the weights' format (FP8 weights do
  // not make QK^T FP8; an FP8 KV cache is dequantized in the kernel, an assumption for FA3's path).
  attention_peak_flops_ = hw.bf16_tflops * 1e12;
  hbm_bps_ = hw.hbm_bandwidth_gbps * 1e9;
  layers_ = m.num_hidden_layers;
  hidden_ = m.hidden_size;
  fabric_efficiency_ = fabric_efficiency(hw);
  fabric_bps_ = hw.gpu_link_gbps * 1e9 * fabric_efficiency_;
  fabric_latency_s_ = hw.gpu_link_latency_us * 1e-6;
  link_kind_ = hw.gpu_link_kind;
  if (runs_mxfp4_triton(m, hw, weight_dtype)) moe_fixed_s_ = m.num_hidden_layers * kMxfp4TritonLayerSeconds;
}

// Two all-reduces per layer of the step's bf16 activations (T x hidden x 2 B), each as vLLM runs
// it for that buffer (perf/all_reduce.hpp: its custom one- or two-shot, else NCCL's ring).
AllReduceFabric StepTimeModel::fabric() const { return fabric(tp_); }

AllReduceFabric StepTimeModel::fabric(int ranks) const {
  return {
      .ranks = ranks, .kind = link_kind_, .gbps = fabric_bps_ / 1e9, .latency_us = fabric_latency_s_ * 1e6};
}

// At DP 1 nothing changes: vLLM runs its all-to-all kernels only where DP > 1 and EP is on
// (FusedMoEParallelConfig.use_all2all_kernels, model_executor/layers/fused_moe/config.py); TP + EP
// keeps the all-reduce, and the experts' bytes per rank are TP's.
void StepTimeModel::spread_experts(const ModelSpec& m, int expert_ranks, bool all_to_all) {
  if (experts_ == 0 || expert_ranks <= tp_) return;
  expert_ranks_ = expert_ranks;
  all_to_all_ = all_to_all;
  weight_bytes_ = weight_bytes_per_rank(m, weight_dtype_, tp_, expert_ranks);
  weight_reads_ = weight_reads_per_rank(m, weight_dtype_, tp_, expert_ranks);
}

// Dispatch and combine: each of the step's tokens goes to k experts and comes back, T x hidden x k
// x 2 B each way, of which (n-1)/n lives on other ranks; one synchronisation each. Every layer is
// counted as a MoE layer (the catalog does not say which are dense: DeepSeek's first three): an
// upper bound.
double StepTimeModel::all_to_all_seconds(const StepWork& w) const {
  if (fabric_bps_ <= 0) return 0;
  const double n = expert_ranks_;
  const double bytes = static_cast<double>(w.tokens) * hidden_ * experts_per_token_ * 2.0 * (n - 1) / n;
  return 2.0 * (bytes / fabric_bps_ + fabric_latency_s_);
}

double StepTimeModel::all_reduce_message_bytes(const StepWork& w) const {
  return static_cast<double>(w.tokens) * hidden_ * 2.0;
}

double StepTimeModel::all_reduce_bandwidth_seconds(const StepWork& w) const {
  return 2.0 * layers_ * kvb::all_reduce_bandwidth_seconds(fabric(), all_reduce_message_bytes(w));
}

double StepTimeModel::all_reduce_seconds(const StepWork& w) const {
  const double message = all_reduce_message_bytes(w);
  if (expert_ranks_ == tp_) return 2.0 * layers_ * kvb::all_reduce_seconds(fabric(), message);
  // Under DP: attention's all-reduce within the engine, the MoE block's across DP x TP.
  const double attention = tp_ > 1 ? kvb::all_reduce_seconds(fabric(), message) : 0.0;
  const double moe =
      all_to_all_ ? all_to_all_seconds(w) : kvb::all_reduce_seconds(fabric(expert_ranks_), message);
  return layers_ * (attention + moe);
}

AllReduceAlgorithm StepTimeModel::all_reduce_algorithm(const StepWork& w) const {
  return kvb::all_reduce_algorithm(fabric(), all_reduce_message_bytes(w));
}

double StepTimeModel::flops(const StepWork& w) const {
  if (expert_ranks_ == tp_) {
    return (linear_flops_per_token_ * static_cast<double>(w.tokens) +
            full_pair_flops_ * w.full_attention_pairs + sliding_pair_flops_ * w.sliding_attention_pairs) /
           tp_;
  }
  const double tokens = static_cast<double>(w.tokens);
  return ((linear_flops_per_token_ - expert_flops_per_token_) * tokens +
          full_pair_flops_ * w.full_attention_pairs + sliding_pair_flops_ * w.sliding_attention_pairs) /
             tp_ +
         expert_flops_per_token_ * tokens / expert_ranks_;
}

double StepTimeModel::bytes(const StepWork& w) const {
  return weight_reads_.bytes_for_tokens(w.tokens) + kv_bytes_per_token_ * w.kv_tokens_touched;
}

// The elementwise kernels between the GEMMs run after them, at HBM speed (perf/activation_traffic).
double StepTimeModel::elementwise_seconds(const StepWork& w) const {
  return activation_bytes_per_token_ * static_cast<double>(w.tokens) / (hbm_bps_ * cal_.memory_efficiency);
}

// A GEMM over T tokens runs at compute-efficiency x T / (T + gemm-half-tokens).
double StepTimeModel::gemm_share(double tokens) const {
  return cal_.gemm_half_tokens > 0 && tokens > 0 ? tokens / (tokens + cal_.gemm_half_tokens) : 1.0;
}

// Mixture of experts: a step of T tokens sends T x k tokens to the experts it touches (expected
// count: experts_touched, perf/weight_rules.hpp), each of which runs one GEMM over the rows routed to
// it (vLLM's fused_moe): T x k / touched(T) rows, at least 1, not T x k / E (a 0.03-row GEMM at
// batch 1 on gpt-oss). Untouched experts cost nothing. Attention projections, shared experts and
// dense layers see all T.
double StepTimeModel::expert_rows(double tokens) const {
  if (experts_ == 0) return tokens;
  const double touched = experts_touched(experts_, experts_per_token_, tokens);
  return std::max(1.0, tokens * experts_per_token_ / touched);
}

double StepTimeModel::linear_seconds(const StepWork& w) const {
  const double tokens = static_cast<double>(w.tokens);
  const double peak = linear_peak_flops_ * cal_.compute_efficiency * tp_;
  const double expert_peak = linear_peak_flops_ * cal_.compute_efficiency * expert_ranks_;
  const double dense =
      (linear_flops_per_token_ - expert_flops_per_token_) * tokens / (peak * gemm_share(tokens));
  const double experts = expert_flops_per_token_ * tokens / (expert_peak * gemm_share(expert_rows(tokens)));
  return dense + experts;
}

double StepTimeModel::step_seconds(const StepWork& w) const {
  const double attention =
      (full_pair_flops_ * w.full_attention_pairs + sliding_pair_flops_ * w.sliding_attention_pairs) / tp_;
  const double compute = linear_seconds(w) + attention / (attention_peak_flops_ * cal_.attention());
  const double memory = bytes(w) / (hbm_bps_ * cal_.memory_efficiency);
  const double moe_fixed = w.tokens > 0 ? moe_fixed_s_ : 0;
  return std::max(compute, memory) + elementwise_seconds(w) + all_reduce_seconds(w) + moe_fixed +
         cal_.step_overhead_s;
}

double StepTimeModel::prefill_seconds(std::int64_t tokens, std::int64_t chunk_tokens) const {
  double total = 0;
  for (std::int64_t start = 0; start < tokens; start += chunk_tokens) {
    StepWork w;
    w.add(start, std::min(chunk_tokens, tokens - start), sliding_window_);
    total += step_seconds(w);
  }
  return total;
}

TimeModelTerms StepTimeModel::terms() const {
  return {.linear_peak_tflops = linear_peak_flops_ / 1e12,
          .compute_efficiency = cal_.compute_efficiency,
          .gemm = gemm_,
          .attention_peak_tflops = attention_peak_flops_ / 1e12,
          .attention_rate_differs = attention_peak_flops_ != gemm_.peak_tflops * 1e12,
          .attention_efficiency = cal_.attention_efficiency,
          .gemm_half_tokens = cal_.gemm_half_tokens,
          .hbm_gbps = hbm_bps_ / 1e9,
          .memory_efficiency = cal_.memory_efficiency,
          .activation_kib_per_token = activation_bytes_per_token_ / 1024.0,
          .tp = tp_,
          .expert_ranks = expert_ranks_ > tp_ ? expert_ranks_ : 0,
          .all_to_all = all_to_all_,
          .fabric_raw_gbps = fabric_bps_ / fabric_efficiency_ / 1e9,
          .fabric_efficiency = fabric_efficiency_,
          .fabric_latency_us = fabric_latency_s_ * 1e6,
          .step_overhead_us = cal_.step_overhead_s * 1e6,
          .request_overhead_ms = cal_.request_overhead_s * 1e3,
          .moe_fixed_us = moe_fixed_s_ * 1e6,
          .moe_layer_fixed_us = moe_fixed_s_ > 0 ? kMxfp4TritonLayerSeconds * 1e6 : 0,
          .weight_dtype = weight_dtype_,
          .weight_gib_per_rank = weight_bytes_ / (1024.0 * 1024 * 1024),
          .calibration = cal_.origin};
}

}  // namespace kvb
