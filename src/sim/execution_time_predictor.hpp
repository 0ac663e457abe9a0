#pragma once
// Turns one engine step (a batch of prefill chunks and decode tokens) into seconds: a roofline
// over the hardware table, per tensor-parallel rank,
//   t = max(FLOPs / (peak x compute-efficiency), bytes / (HBM bandwidth x memory-efficiency))
//       + step overhead,
// FLOPs = 2 x active params x tokens + causal attention over each token's context,
// bytes  = the rank's weights once + the KV read (context) and written (new tokens).
// Tensor-parallel communication is not modelled; efficiencies come from a calibration file.
#include <cstdint>
#include <string>

#include "size/hardware_spec.hpp"
#include "size/kv_layout.hpp"
#include "size/model_spec.hpp"
#include "sim/scenario.hpp"

namespace kvb {

// What one step computes, accumulated request by request.
struct StepWork {
  std::int64_t tokens = 0;          // new tokens processed (prefill chunk tokens + decodes)
  double full_attention_pairs = 0;  // sum over new tokens of their causal context length
  double sliding_attention_pairs = 0;
  double kv_tokens_touched = 0;     // context read + new tokens written, summed over sequences

  // A request processes tokens [start, start + n) of its sequence.
  void add(std::int64_t start, std::int64_t n, int sliding_window);
};

class ExecutionTimePredictor {
 public:
  ExecutionTimePredictor(const ModelSpec& model, const HardwareSpec& hw, const KvLayout& layout, int tp,
                         const std::string& weight_dtype, const Calibration& calibration);

  double step_seconds(const StepWork& w) const;
  double flops(const StepWork& w) const;        // per rank
  double bytes(const StepWork& w) const;        // per rank
  std::string describe() const;                 // the model and factors, for the output
  int sliding_window() const { return sliding_window_; }

  double peak_flops_per_rank() const { return peak_flops_; }
  double hbm_bytes_per_second() const { return hbm_bps_; }
  double weight_bytes_per_rank() const { return weight_bytes_; }
  double kv_bytes_per_token() const { return kv_bytes_per_token_; }
  const Calibration& calibration() const { return cal_; }

 private:
  double linear_flops_per_token_ = 0;  // 2 x active params
  double full_pair_flops_ = 0;         // per (query, key) pair over the full-attention layers
  double sliding_pair_flops_ = 0;
  int sliding_window_ = 0;
  double weight_bytes_ = 0;
  double kv_bytes_per_token_ = 0;
  double peak_flops_ = 0;
  double hbm_bps_ = 0;
  int tp_ = 1;
  Calibration cal_;
  std::string weight_dtype_;
};

}  // namespace kvb
