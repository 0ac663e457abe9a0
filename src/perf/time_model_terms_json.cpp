#include "perf/time_model_terms_json.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a time model can have: TFLOP/s and GB/s of one GPU or fabric, efficiencies as
// fractions of peak, times (a second per step at most, perf/calibration.hpp), tokens, KiB and GiB
// per rank, ranks, and the vLLM runs a fit read.
constexpr double kMaxTflops = 1e6;
constexpr double kMaxGbps = 1e6;
constexpr double kMaxUs = kMaxStepOverheadUs;
constexpr double kMaxMs = kMaxStepOverheadUs / 1e3;
constexpr double kMaxTokens = 1e9;
constexpr double kMaxKib = 1e9;
constexpr double kMaxGib = 1e6;
constexpr std::int64_t kMaxRanks = 1 << 20;
constexpr std::int64_t kMaxRuns = std::int64_t{1} << 40;

// The enums' names in a document (stable: documents are read back by later releases).
constexpr TagTable<GemmKernel, 4> kKernels{{{GemmKernel::kNative, "native"},
                                            {GemmKernel::kMarlin, "marlin"},
                                            {GemmKernel::kMachete, "machete"},
                                            {GemmKernel::kWeightOnly, "weight-only"}}};
constexpr TagTable<CalibrationFrom, 6> kFrom{{{CalibrationFrom::kDefaults, "defaults"},
                                              {CalibrationFrom::kHardwareTable, "hardware-table"},
                                              {CalibrationFrom::kFile, "file"},
                                              {CalibrationFrom::kCalibrate, "calibrate"},
                                              {CalibrationFrom::kFromVllm, "from-vllm"},
                                              {CalibrationFrom::kRecorded, "recorded"}}};

json gemm_to_json(const WeightGemm& g) {
  return {{"peak_tflops", g.peak_tflops},
          {"kernel", tag_of(kKernels, g.kernel)},
          {"dequant_efficiency", g.dequant_efficiency},
          {"dequant_known", g.dequant_known}};
}
WeightGemm gemm_from_json(const JsonFields& r, const json& j) {
  return {.peak_tflops = r.required(j, "peak_tflops", kMaxTflops),
          .kernel = tag_field(r, j, "kernel", kKernels),
          .dequant_efficiency = r.required(j, "dequant_efficiency", 1),
          .dequant_known = r.flag(j, "dequant_known")};
}

// The rates and factors: compute, attention and HBM.
void put_rates(const TimeModelTerms& t, json& j) {
  j["linear_peak_tflops"] = t.linear_peak_tflops;
  j["compute_efficiency"] = t.compute_efficiency;
  j["gemm"] = gemm_to_json(t.gemm);
  j["attention_peak_tflops"] = t.attention_peak_tflops;
  j["attention_rate_differs"] = t.attention_rate_differs;
  j["attention_efficiency"] = t.attention_efficiency ? json(*t.attention_efficiency) : json(nullptr);
  j["gemm_half_tokens"] = t.gemm_half_tokens;
  j["hbm_gbps"] = t.hbm_gbps;
  j["memory_efficiency"] = t.memory_efficiency;
  j["activation_kib_per_token"] = t.activation_kib_per_token;
}
void get_rates(const JsonFields& r, const json& j, TimeModelTerms& t) {
  t.linear_peak_tflops = r.required(j, "linear_peak_tflops", kMaxTflops);
  t.compute_efficiency = r.required(j, "compute_efficiency", 1);
  t.gemm = gemm_from_json(r, r.object(j, "gemm"));
  t.attention_peak_tflops = r.required(j, "attention_peak_tflops", kMaxTflops);
  t.attention_rate_differs = r.flag(j, "attention_rate_differs");
  t.attention_efficiency = r.maybe(j, "attention_efficiency", 0, 1);
  t.gemm_half_tokens = r.required(j, "gemm_half_tokens", kMaxTokens);
  t.hbm_gbps = r.required(j, "hbm_gbps", kMaxGbps);
  t.memory_efficiency = r.required(j, "memory_efficiency", 1);
  t.activation_kib_per_token = r.required(j, "activation_kib_per_token", kMaxKib);
}

// Parallelism, the GPU fabric, fixed costs, the weights and the calibration's origin.
void put_parallel_and_fixed(const TimeModelTerms& t, json& j) {
  j["tp"] = t.tp;
  j["expert_ranks"] = t.expert_ranks;
  j["all_to_all"] = t.all_to_all;
  j["fabric_raw_gbps"] = t.fabric_raw_gbps;
  j["fabric_efficiency"] = t.fabric_efficiency;
  j["fabric_latency_us"] = t.fabric_latency_us;
  j["step_overhead_us"] = t.step_overhead_us;
  j["request_overhead_ms"] = t.request_overhead_ms;
  j["moe_fixed_us"] = t.moe_fixed_us;
  j["moe_layer_fixed_us"] = t.moe_layer_fixed_us;
  j["weight_dtype"] = t.weight_dtype;
  j["weight_gib_per_rank"] = t.weight_gib_per_rank;
  j["calibration"] = calibration_origin_to_json(t.calibration);
}
void get_parallel_and_fixed(const JsonFields& r, const json& j, TimeModelTerms& t) {
  t.tp = static_cast<int>(r.integer(j, "tp", 1, kMaxRanks));
  t.expert_ranks = static_cast<int>(r.integer(j, "expert_ranks", 0, kMaxRanks));
  t.all_to_all = r.flag(j, "all_to_all");
  t.fabric_raw_gbps = r.required(j, "fabric_raw_gbps", kMaxGbps);
  t.fabric_efficiency = r.required(j, "fabric_efficiency", 1);
  t.fabric_latency_us = r.required(j, "fabric_latency_us", kMaxUs);
  t.step_overhead_us = r.required(j, "step_overhead_us", kMaxUs);
  t.request_overhead_ms = r.required(j, "request_overhead_ms", kMaxMs);
  t.moe_fixed_us = r.required(j, "moe_fixed_us", kMaxUs);
  t.moe_layer_fixed_us = r.required(j, "moe_layer_fixed_us", kMaxUs);
  t.weight_dtype = r.text(j, "weight_dtype");
  t.weight_gib_per_rank = r.required(j, "weight_gib_per_rank", kMaxGib);
}

}  // namespace

json calibration_origin_to_json(const CalibrationOrigin& o) {
  return {{"from", tag_of(kFrom, o.from)},
          {"hardware", o.hardware},
          {"fitted_to", o.fitted_to},
          {"file", o.file},
          {"measured", o.measured},
          {"device", o.device},
          {"model", o.model},
          {"runs", o.runs},
          {"text", o.text}};
}

CalibrationOrigin calibration_origin_from_json(const json& j, const std::string& where) {
  const JsonFields r(where + ": calibration");
  if (!j.is_object()) {
    throw UsageError(fmt::format("{} is a {}; expected an object with from", r.where(), j.type_name()));
  }
  CalibrationOrigin o;
  o.from = tag_field(r, j, "from", kFrom);
  o.hardware = r.text(j, "hardware");
  o.fitted_to = r.text(j, "fitted_to");
  o.file = r.text(j, "file");
  o.measured = r.flag(j, "measured");
  o.device = r.text(j, "device");
  o.model = r.text(j, "model");
  o.runs = static_cast<std::size_t>(r.integer(j, "runs", 0, kMaxRuns));
  o.text = r.text(j, "text");
  return o;
}

json time_model_terms_to_json(const TimeModelTerms& t) {
  json j = json::object();
  put_rates(t, j);
  put_parallel_and_fixed(t, j);
  return j;
}

TimeModelTerms time_model_terms_from_json(const json& j, const std::string& where) {
  const JsonFields r(where + ": time_model");
  if (!j.is_object()) {
    throw UsageError(fmt::format("{} is a {}; expected an object", r.where(), j.type_name()));
  }
  TimeModelTerms t;
  get_rates(r, j, t);
  get_parallel_and_fixed(r, j, t);
  const auto it = j.find("calibration");
  if (it == j.end()) throw UsageError(fmt::format("{}: field 'calibration' must be an object", r.where()));
  t.calibration = calibration_origin_from_json(*it, r.where());
  return t;
}

}  // namespace kvb
