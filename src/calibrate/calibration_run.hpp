#pragma once
// `kvbench calibrate`: times one layer's GEMMs per point on the GPU, builds each point's forward
// time, and fits the time model's compute efficiency (prefill, compute-bound points) and memory
// efficiency (decode, memory-bound points). What is measured and what is modelled:
//   measured  the projections (and decode attention, as batched GEMMs) of one layer, x layers;
//             the LM head; a device-to-device copy (HBM bandwidth)
//   modelled  prefill attention at the point's measured GEMM rate (flash attention is not in
//             cuBLAS); elementwise work (norms, rotary, activation, residuals, cache write) at the
//             measured copy bandwidth; the step overhead comes from the hardware file or a flag.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/operator_timer.hpp"
#include "calibrate/operator_plan.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/model_spec.hpp"
#include "perf/calibration.hpp"
#include "server/resolved_server.hpp"

namespace kvb {

struct CalibrationRequest {
  ModelSpec model;
  HardwareSpec hw;
  int tp = 1;
  std::vector<std::int64_t> prefill_tokens{512, 2048, 8192, 32768};
  std::vector<std::int64_t> decode_batches{1, 8, 64, 256};
  std::int64_t decode_context = 1024;
  int repetitions = 10;
  double step_overhead_us = 0;
  std::string step_overhead_source;
};

struct CalibrationPoint {
  std::string regime;             // "prefill" or "decode"
  std::int64_t tokens = 0;        // prefill: prompt tokens; decode: sequences (one token each)
  std::int64_t context = 0;       // decode: keys each sequence attends to before this token
  double layer_gemm_s = 0;        // measured, one layer
  double attention_s = 0;         // modelled per layer: prefill at the GEMM rate, decode at the copy rate
  double elementwise_s = 0;       // modelled per layer
  double lm_head_s = 0;           // measured
  double forward_s = 0;           // layers x (gemm + attention + elementwise) + LM head
  double gemm_tflops = 0;         // the measured GEMMs' rate
  double flops = 0, bytes = 0;    // what the time model counts for this step (per rank)
  double compute_efficiency = 0;  // flops / (peak x forward)
  double memory_efficiency = 0;   // bytes / (HBM peak x forward)
  std::string bound;              // "compute" or "memory": the larger roofline term at peak
  double predicted_s = 0;         // the fitted roofline's time
  double spread = 0;              // (max - min) / median of the repetitions
  int weight_sets = 0;
  std::string skipped;  // why the point was not timed ("" when it was)
};

struct CalibrationResult {
  std::string device, runtime;
  // The server timed: the model, GPU and TP, the bf16 weights the GEMMs run and the KV cache the
  // time model counts. Its batch limits and max_model_len stay 0: calibrate times operators at
  // its own points, not a served batch.
  ResolvedServer server;
  FfnWidth ffn_width;
  double peak_tflops = 0, hbm_peak_gbps = 0;
  double hbm_copy_gbps = 0;  // measured: 2 x bytes / time of a device-to-device copy
  std::uint64_t hbm_copy_bytes = 0;
  std::vector<CalibrationPoint> points;
  Calibration fitted;
  Calibration reference;  // what runs use without this file: the hardware file's fit or the defaults
  std::string step_overhead_source;
  // Words: output/calibrate/calibrate_documents' calibration_run_notes and the shared-GPU warnings
  // (cmd_calibrate), or as a document read back said them.
  std::vector<std::string> notes;
};

// Throws UsageError for a model or point list calibrate cannot use, or a measurement beyond the
// hardware file's peak (the wrong --hw); DeviceError from the timer.
CalibrationResult run_calibration(OperatorTimer& timer, const CalibrationRequest& request);

}  // namespace kvb
