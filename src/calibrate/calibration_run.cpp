#include "calibrate/calibration_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calibrate/calibration_fit.hpp"
#include "calibrate/operator_plan.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "perf/step_time_model.hpp"
#include "perf/weight_rules.hpp"
#include "size/kv_layout.hpp"

namespace kvb {
namespace {

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;
// Left free for the library's workspace and the runtime.
constexpr double kReserveBytes = 1.0 * kGiBytes;
constexpr int kMaxWeightSets = 16;

// Enough operand sets that a pass streams at least four L2s of memory (a small model's layer
// would otherwise be served from the L2 and flatter the memory efficiency), within free memory.
int weight_sets_for(double set_bytes, OperatorTimer& timer, int layers) {
  const double target = 4.0 * static_cast<double>(timer.l2_bytes());
  int sets = std::clamp(static_cast<int>(std::ceil(target / std::max(set_bytes, 1.0))), 1,
                        std::min(layers, kMaxWeightSets));
  const double free = static_cast<double>(timer.free_bytes()) - kReserveBytes;
  while (sets > 0 && sets * set_bytes > free) --sets;
  return sets;
}

// Why a point was not timed, as CalibrationPoint::skipped records it: the result document keeps it in
// these words (kvbench/calibrate/v1 "skipped") and the text and the report print them as read.
std::string no_room(double set_bytes, OperatorTimer& timer) {
  return fmt::format("needs {:.1f} GiB of device memory, {:.1f} GiB free", set_bytes / kGiBytes,
                     static_cast<double>(timer.free_bytes()) / kGiBytes);
}

// The server the run times: bf16 weights (what the GEMMs run) and the KV layout the time model
// counts; no batch limits (calibrate's own points, not a served batch).
ResolvedServer timed_server(const CalibrationRequest& r, const KvLayout& layout) {
  return {.model = r.model.name,
          .hf_id = r.model.hf_id,
          .hardware = r.hw.name,
          .tensor_parallel_size = r.tp,
          .pipeline_parallel_size = 1,
          .data_parallel_size = 1,
          .expert_parallel = false,
          .max_model_len = 0,
          .max_num_batched_tokens = 0,
          .max_num_seqs = 0,
          .weight_dtype = "bf16",
          .kv_cache_dtype = layout.kv_dtype,
          .block_size = layout.block_size,
          .offloading_backend = OffloadingBackend::kNative};
}

std::vector<std::int64_t> checked(const std::vector<std::int64_t>& v, const char* flag) {
  if (v.empty()) throw UsageError(fmt::format("{}: expected at least one value", flag));
  for (const auto x : v) {
    if (x < 1 || x > (1 << 20)) throw UsageError(fmt::format("{} {}: expected 1 to 1048576", flag, x));
  }
  return v;
}

}  // namespace

namespace {

// One calibration run: the request's shapes and the time model's own FLOP and byte counts, the
// timer, and the result as its points are timed.
class CalibrationRun {
 public:
  CalibrationRun(OperatorTimer& timer, const CalibrationRequest& r, const LayerShapes& shapes,
                 const KvLayout& layout, const StepTimeModel& model)
      : timer_(timer), r_(r), shapes_(shapes), model_(model) {
    out_.device = timer.device_name();
    out_.runtime = timer.runtime();
    out_.server = timed_server(r, layout);
    out_.ffn_width = shapes.ffn_width;
    out_.peak_tflops = peak_tflops(r.hw, "bf16");
    out_.hbm_peak_gbps = r.hw.hbm_bandwidth_gbps;
    out_.step_overhead_source = r.step_overhead_source;
    peak_ = out_.peak_tflops * 1e12;
    hbm_ = out_.hbm_peak_gbps * 1e9;
  }

  // HBM: a 1 GiB copy (less on a nearly full device) reads and writes every byte once.
  void measure_hbm_copy() {
    const double copy_room = (static_cast<double>(timer_.free_bytes()) - kReserveBytes) / 4;
    out_.hbm_copy_bytes =
        static_cast<std::uint64_t>(std::clamp(copy_room, 64.0 * 1024 * 1024, kGiBytes)) & ~0xFFFFFull;
    const double copy_s = timer_.time_device_copy(out_.hbm_copy_bytes, r_.repetitions);
    out_.hbm_copy_gbps = 2.0 * static_cast<double>(out_.hbm_copy_bytes) / copy_s / 1e9;
  }

  void prefill_point(std::int64_t tokens) {
    CalibrationPoint p;
    p.regime = "prefill";
    p.tokens = tokens;
    const auto ops = linear_layer_ops(shapes_, tokens);
    if (!time_layer(ops, p)) return;
    const double rate = operand_flops(ops) / p.layer_gemm_s;
    p.gemm_tflops = rate / 1e12;
    p.attention_s = prefill_attention_flops(shapes_, tokens) / rate;
    p.elementwise_s = elementwise_bytes_per_token(shapes_) * static_cast<double>(tokens) / copy_bps();
    p.lm_head_s = time_lm_head(1);  // vLLM computes logits for the last position only
    p.forward_s = shapes_.layers * (p.layer_gemm_s + p.attention_s + p.elementwise_s) + p.lm_head_s;
    StepWork w;
    w.add(0, tokens, 0);
    finish(p, w);
  }

  void decode_point(std::int64_t batch) {
    CalibrationPoint p;
    p.regime = "decode";
    p.tokens = batch;
    p.context = r_.decode_context;
    const auto ops = linear_layer_ops(shapes_, batch);
    if (!time_layer(ops, p)) return;
    p.gemm_tflops = operand_flops(ops) / p.layer_gemm_s / 1e12;
    p.attention_s = decode_attention_bytes(shapes_, batch, r_.decode_context) / copy_bps();
    p.elementwise_s = elementwise_bytes_per_token(shapes_) * static_cast<double>(batch) / copy_bps();
    p.lm_head_s = time_lm_head(batch);
    p.forward_s = shapes_.layers * (p.layer_gemm_s + p.attention_s + p.elementwise_s) + p.lm_head_s;
    StepWork w;
    for (std::int64_t i = 0; i < batch; ++i) w.add(r_.decode_context, 1, 0);
    finish(p, w);
  }

  // The efficiencies from the compute-bound prefills and the memory-bound decodes, and each
  // point's prediction under them.
  void fit() {
    std::vector<double> compute, memory;
    for (const auto& p : out_.points) {
      if (!p.skipped.empty()) continue;
      if (p.regime == "prefill" && p.bound == "compute") compute.push_back(p.compute_efficiency);
      if (p.regime == "decode" && p.bound == "memory") memory.push_back(p.memory_efficiency);
      check_below_peak(p);
    }
    require_both_regimes(compute, memory);
    out_.fitted.compute_efficiency = std::min(1.0, fit_efficiency(compute));
    out_.fitted.memory_efficiency = std::min(1.0, fit_efficiency(memory));
    out_.fitted.step_overhead_s = r_.step_overhead_us * 1e-6;
    out_.fitted.origin.from = CalibrationFrom::kCalibrate;
    out_.fitted.origin.device = out_.device;
    out_.fitted.origin.model = out_.server.model;
    out_.reference = default_calibration(r_.hw);
    for (auto& p : out_.points) {
      if (!p.skipped.empty()) continue;
      p.predicted_s = roofline_seconds(p.flops, p.bytes, peak_, hbm_, out_.fitted.compute_efficiency,
                                       out_.fitted.memory_efficiency);
    }
  }

  CalibrationResult result() { return out_; }

 private:
  double copy_bps() const { return out_.hbm_copy_gbps * 1e9; }

  double time_lm_head(std::int64_t rows) {
    const std::vector<GemmOp> ops{lm_head_op(shapes_, rows)};
    const int sets = weight_sets_for(operand_bytes(ops), timer_, 2);
    return sets > 0 ? timer_.time_sequence(ops, sets, r_.repetitions).seconds : 0.0;
  }

  // One layer's GEMMs timed into `p`; false (and why in p.skipped) when they do not fit.
  bool time_layer(const std::vector<GemmOp>& ops, CalibrationPoint& p) {
    const double set_bytes = operand_bytes(ops);
    p.weight_sets = weight_sets_for(set_bytes, timer_, shapes_.layers);
    if (p.weight_sets == 0) {
      p.skipped = no_room(set_bytes, timer_);
      out_.points.push_back(p);
      return false;
    }
    const auto t = timer_.time_sequence(ops, p.weight_sets, r_.repetitions);
    p.layer_gemm_s = t.seconds;
    p.spread = t.spread;
    return true;
  }

  void finish(CalibrationPoint& p, const StepWork& w) {
    p.flops = model_.flops(w);
    p.bytes = model_.bytes(w);
    p.compute_efficiency = p.flops / (peak_ * p.forward_s);
    p.memory_efficiency = p.bytes / (hbm_ * p.forward_s);
    p.bound = p.flops / peak_ >= p.bytes / hbm_ ? "compute" : "memory";
    out_.points.push_back(p);
  }

  // Beyond the table's peak: the hardware file is not this GPU (or its peak is wrong).
  void check_below_peak(const CalibrationPoint& p) const {
    const double over = std::max(p.compute_efficiency, p.memory_efficiency);
    if (over > 1.02) {
      throw UsageError(fmt::format(
          "--hw {}: {} {} measured {:.0f}% of the table's peak ({:.0f} TFLOP/s, {:.0f} GB/s) on "
          "{}; is --hw this GPU?",
          r_.hw.name, p.regime, p.tokens, over * 100, out_.peak_tflops, out_.hbm_peak_gbps, out_.device));
    }
  }

  void require_both_regimes(const std::vector<double>& compute, const std::vector<double>& memory) const {
    if (compute.empty()) {
      throw UsageError(
          fmt::format("--prefill: no timed prefill point is compute-bound for {} on {}; add a larger token "
                      "count (e.g. 8192)",
                      r_.model.name, r_.hw.name));
    }
    if (memory.empty()) {
      throw UsageError(
          fmt::format("--decode-batch: no timed decode point is memory-bound for {} on {}; add a smaller "
                      "batch (e.g. 1)",
                      r_.model.name, r_.hw.name));
    }
  }

  OperatorTimer& timer_;
  const CalibrationRequest& r_;
  const LayerShapes& shapes_;
  const StepTimeModel& model_;
  CalibrationResult out_;
  double peak_ = 0, hbm_ = 0;
};

}  // namespace

CalibrationResult run_calibration(OperatorTimer& timer, const CalibrationRequest& r) {
  const auto shapes = layer_shapes(r.model, r.tp);
  const auto prefill = checked(r.prefill_tokens, "--prefill");
  const auto decode = checked(r.decode_batches, "--decode-batch");
  if (r.decode_context < 1 || r.decode_context > (1 << 20)) {
    throw UsageError(fmt::format("--decode-context {}: expected 1 to 1048576", r.decode_context));
  }
  if (r.repetitions < 1 || r.repetitions > 1000) {
    throw UsageError(fmt::format("--repetitions {}: expected 1 to 1000", r.repetitions));
  }
  KvSettings kv;
  kv.tp = r.tp;
  const auto layout = compute_kv_layout(r.model, r.hw, kv);
  // The time model's own FLOP and byte counts (bf16 weights: what the GEMMs run), unit efficiencies.
  Calibration unit;
  unit.compute_efficiency = unit.memory_efficiency = 1.0;
  unit.step_overhead_s = 0;
  const StepTimeModel model(r.model, r.hw, static_cast<double>(layout.kv_bytes_per_token()), r.tp, "bf16",
                            unit);
  CalibrationRun run(timer, r, shapes, layout, model);
  run.measure_hbm_copy();
  for (const auto tokens : prefill) {
    throw_if_interrupted();  // a partial fit would be a wrong calibration: nothing is written
    run.prefill_point(tokens);
  }
  for (const auto batch : decode) {
    throw_if_interrupted();
    run.decode_point(batch);
  }
  run.fit();
  return run.result();
}

}  // namespace kvb
