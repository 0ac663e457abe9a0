#pragma once
// kvbench's one time model for GPU work, used by the simulator for every engine step and by
// `size` for the recompute estimate, so the two can never disagree on a time. One engine step (a
// batch of prefill chunks and decode tokens) takes, per tensor-parallel rank, a roofline over
// the hardware table:
//   t = max(FLOPs / (peak x compute-efficiency), bytes / (HBM bandwidth x memory-efficiency))
//       + activations / (HBM bandwidth x memory-efficiency) + step overhead,
// FLOPs = 2 x active params x tokens + causal attention over each token's context (the GEMMs at
//         the weight format's rate, weight-only formats at the 16-bit rate x their dequantizing
//         kernel's share, perf/weight_rules.hpp; attention at the 16-bit rate),
// bytes  = the rank's weights once (MoE: the dense part and the experts the step's tokens touch,
//          perf/weight_rules.hpp) + the KV read (context) and written (new tokens),
// activations = what the elementwise kernels between the GEMMs read and write, per token
//          (perf/activation_traffic.hpp): they run after the GEMMs, not under them;
// MXFP4 experts on Hopper (triton_kernels' routing and matmul_ogs) add a fixed time per MoE layer.
// With TP > 1, two all-reduces per layer over the GPU fabric are added (all_reduce_seconds: vLLM's
// custom one- or two-shot kernel where it serves the buffer, else NCCL's ring; perf/all_reduce.hpp);
// efficiencies come from a calibration.
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "perf/all_reduce.hpp"
#include "perf/calibration.hpp"
#include "perf/weight_rules.hpp"

namespace kvb {

// What one step computes, accumulated request by request.
struct StepWork {
  std::int64_t tokens = 0;          // new tokens processed (prefill chunk tokens + decodes)
  double full_attention_pairs = 0;  // sum over new tokens of their causal context length
  double sliding_attention_pairs = 0;
  double kv_tokens_touched = 0;  // context read + new tokens written, summed over sequences

  // A request processes tokens [start, start + n) of its sequence.
  void add(std::int64_t start, std::int64_t n, int sliding_window);
};

// The model's terms and factors, as output/common/time_model_text words them for the simulate and size
// outputs ("roofline per TP rank: ...").
struct TimeModelTerms {
  double linear_peak_tflops = 0, compute_efficiency = 0;  // the GEMMs' rate after dequantization
  WeightGemm gemm;                                        // their kernel (16-bit: kNative)
  double attention_peak_tflops = 0;                       // the 16-bit rate
  bool attention_rate_differs = false;                    // from the GEMMs' tensor-core rate
  std::optional<double> attention_efficiency;             // a calibration's attention factor
  double gemm_half_tokens = 0;                            // GEMMs at T / (T + this); 0: none
  double hbm_gbps = 0, memory_efficiency = 0;
  double activation_kib_per_token = 0;  // the elementwise kernels' traffic per token and rank
  int tp = 1;
  // Under data parallelism a MoE layer spans expert_ranks (DP x TP): with expert parallelism its
  // block's all-reduce is an all-to-all dispatch and combine (0: a model of one engine at TP).
  int expert_ranks = 0;
  bool all_to_all = false;
  double fabric_raw_gbps = 0, fabric_efficiency = 1, fabric_latency_us = 0;  // 0 GB/s: fabric unknown
  double step_overhead_us = 0, request_overhead_ms = 0;
  double moe_fixed_us = 0;        // per step: MXFP4 experts on Hopper (triton_kernels), 0 elsewhere
  double moe_layer_fixed_us = 0;  // its fitted figure per MoE layer
  std::string weight_dtype;
  double weight_gib_per_rank = 0;
  CalibrationOrigin calibration;
};

class StepTimeModel {
 public:
  // `kv_bytes_per_token`: one rank's KV for one token over the layers that grow with context.
  StepTimeModel(const ModelSpec& model, const HardwareSpec& hw, double kv_bytes_per_token, int tp,
                const std::string& weight_dtype, const Calibration& calibration);

  // Data parallelism over a MoE model (size's DP x EP): the routed experts' weights, FLOPs and
  // reads split over `expert_ranks` (DP x TP) instead of TP; with `all_to_all` (expert
  // parallelism) each MoE layer's all-reduce after the experts becomes vLLM's all-to-all: the
  // step's T x hidden x k x 2 B dispatched and combined, the (n-1)/n that leaves the rank over the
  // GPU fabric (docs/serving/expert_parallel_deployment.md; its default allgather/reducescatter
  // backend moves at least these bytes), else an all-reduce over all DP x TP ranks. The attention
  // block's all-reduce stays within the engine's TP.
  void spread_experts(const ModelSpec& model, int expert_ranks, bool all_to_all);

  double step_seconds(const StepWork& w) const;
  // Tensor parallelism: two all-reduces per layer (after attention's output projection and the
  // MLP's down projection, vLLM's RowParallelLinear) of the step's activations, each by the
  // algorithm vLLM picks for its size (perf/all_reduce.hpp; gpu_link_latency_us per
  // synchronisation), not overlapped with compute. 0 at TP 1 or where the GPU fabric is unknown.
  double all_reduce_seconds(const StepWork& w) const;
  AllReduceAlgorithm all_reduce_algorithm(const StepWork& w) const;
  // Its bandwidth part alone (the bytes over the fabric, without the per-all-reduce latency): what
  // stretches when the fabric's links carry other traffic.
  double all_reduce_bandwidth_seconds(const StepWork& w) const;
  double flops(const StepWork& w) const;  // per rank
  double bytes(const StepWork& w) const;  // per rank
  // A prefill of `tokens` from an empty context, alone, in chunks of `chunk_tokens` (vLLM's
  // chunked prefill at max-num-batched-tokens): one step per chunk.
  double prefill_seconds(std::int64_t tokens, std::int64_t chunk_tokens) const;
  TimeModelTerms terms() const;  // the model and factors, for the output
  // Rows of each touched routed expert's GEMM in a step of `tokens` tokens (MoE; a dense model: all).
  double expert_rows(double tokens) const;
  int sliding_window() const { return sliding_window_; }
  const Calibration& calibration() const { return cal_; }

 private:
  double gemm_share(double tokens) const;
  AllReduceFabric fabric() const;
  double all_reduce_message_bytes(const StepWork& w) const;
  AllReduceFabric fabric(int ranks) const;
  double all_to_all_seconds(const StepWork& w) const;   // one MoE layer's dispatch and combine
  double linear_seconds(const StepWork& w) const;       // the GEMMs, per rank
  double elementwise_seconds(const StepWork& w) const;  // the kernels between them, per rank

  double linear_flops_per_token_ = 0;  // 2 x active params
  double expert_flops_per_token_ = 0;  // the routed experts' part of it (MoE)
  int experts_ = 0;                    // E routed experts (0: dense)
  int experts_per_token_ = 0;          // k
  double full_pair_flops_ = 0;         // per (query, key) pair over the full-attention layers
  double sliding_pair_flops_ = 0;
  int sliding_window_ = 0;
  double weight_bytes_ = 0;   // all weights of the rank
  WeightReads weight_reads_;  // what one step reads of them (MoE: the experts it touches)
  double kv_bytes_per_token_ = 0;
  WeightGemm gemm_;                  // the linear layers' kernel and rate (perf/weight_rules.hpp)
  double linear_peak_flops_ = 0;     // its rate after any dequantization, FLOP/s
  double attention_peak_flops_ = 0;  // the 16-bit rate: attention runs in the activations' dtype
  double hbm_bps_ = 0;
  int tp_ = 1;
  int expert_ranks_ = 1;     // the ranks the routed experts split over (TP, or DP x TP)
  bool all_to_all_ = false;  // expert parallelism: all-to-all instead of the MoE all-reduce
  int layers_ = 0;
  double hidden_ = 0;
  double fabric_bps_ = 0;  // GPU-to-GPU, per direction, x fabric_efficiency_
  double fabric_efficiency_ = 1;
  double activation_bytes_per_token_ = 0;
  double fabric_latency_s_ = 0;
  double moe_fixed_s_ = 0;  // per step: the MoE layers' fixed kernel chain (step_time_model.cpp)
  GpuLinkKind link_kind_ = GpuLinkKind::kNvlink;
  Calibration cal_;
  std::string weight_dtype_;
};

}  // namespace kvb
