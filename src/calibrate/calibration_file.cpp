#include "calibrate/calibration_file.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "server/server_json.hpp"

namespace kvb {
namespace {

// One point, every key point_json writes (files written before spread, weight_sets and the
// modelled terms were recorded read them as zero).
CalibrationPoint point_from_json(const nlohmann::json& j, const std::string& origin) {
  CalibrationPoint p;
  p.regime = j.at("regime").get<std::string>();
  if (p.regime != "prefill" && p.regime != "decode") {
    throw UsageError(fmt::format("{}: point regime '{}'; expected prefill or decode", origin, p.regime));
  }
  p.tokens = json_integer_in(j, p.regime == "prefill" ? "tokens" : "batch", 1, kMaxTokens, origin);
  p.context = json_integer_or(j, "context", 0, kMaxTokens, 0, origin);
  p.skipped = j.value("skipped", "");
  if (!p.skipped.empty()) return p;
  p.layer_gemm_s = json_number_in(j, "layer_gemm_ms", 0, 1e9, origin) / 1e3;
  p.gemm_tflops = json_number_in(j, "gemm_tflops", 0, 1e5, origin);
  p.attention_s = json_number_or(j, "attention_ms_modelled", 0, 1e9, 0, origin) / 1e3;
  p.elementwise_s = json_number_or(j, "elementwise_ms_modelled", 0, 1e9, 0, origin) / 1e3;
  p.lm_head_s = json_number_or(j, "lm_head_ms", 0, 1e9, 0, origin) / 1e3;
  p.forward_s = json_number_in(j, "forward_ms", 1e-9, 1e9, origin) / 1e3;
  p.predicted_s = json_number_in(j, "predicted_ms", 0, 1e12, origin) / 1e3;
  p.compute_efficiency = json_number_in(j, "compute_efficiency", 0, 1e3, origin);
  p.memory_efficiency = json_number_in(j, "memory_efficiency", 0, 1e3, origin);
  p.bound = j.at("bound").get<std::string>();
  p.spread = json_number_or(j, "spread", 0, 1e6, 0, origin);
  p.weight_sets = static_cast<int>(json_integer_or(j, "weight_sets", 0, 1 << 20, 0, origin));
  if (!(p.forward_s > 0))
    throw UsageError(fmt::format("{}: a point with forward_ms {:g}", origin, p.forward_s * 1e3));
  return p;
}

}  // namespace

CalibrationResult calibration_from_json(const nlohmann::json& doc, const std::string& origin) {
  // The fitted figures may sit a little above 1 (timing noise on a compute-bound point).
  const auto efficiency = [&](const nlohmann::json& j, const char* key) {
    return json_number_in(j, key, kMinEfficiency, 1.02, origin);
  };
  const auto overhead_s = [&](const nlohmann::json& j) {
    return json_number_in(j, "step_overhead_us", 0, kMaxStepOverheadUs, origin) * 1e-6;
  };
  CalibrationResult r;
  r.device = doc.at("device").get<std::string>();
  r.runtime = doc.at("runtime").get<std::string>();
  r.server = read_server_json(doc, origin);
  const auto& cal = doc.at("calibration");
  r.fitted.compute_efficiency = efficiency(cal, "compute_efficiency");
  r.fitted.memory_efficiency = efficiency(cal, "memory_efficiency");
  r.fitted.step_overhead_s = overhead_s(cal);
  r.step_overhead_source = cal.value("step_overhead_source", "");
  if (doc.contains("without_this_file")) {
    const auto& ref = doc.at("without_this_file");
    r.reference.compute_efficiency = efficiency(ref, "compute_efficiency");
    r.reference.memory_efficiency = efficiency(ref, "memory_efficiency");
    r.reference.step_overhead_s = overhead_s(ref);
    r.reference.origin.from = CalibrationFrom::kRecorded;
    r.reference.origin.text = ref.value("source", "");
  }
  // Peaks and copy rates no GPU comes near (100 PFLOP/s, 100 TB/s) are a broken file.
  r.peak_tflops = json_number_in(doc, "peak_tflops", 1e-3, 1e5, origin);
  r.hbm_peak_gbps = json_number_in(doc, "hbm_peak_gbps", 1e-3, 1e5, origin);
  r.hbm_copy_gbps = json_number_in(doc, "hbm_copy_gbps", 0, 1e5, origin);
  r.hbm_copy_bytes =
      static_cast<std::uint64_t>(json_integer_or(doc, "hbm_copy_bytes", 0, 1LL << 50, 0, origin));
  for (const auto& j : doc.at("points")) r.points.push_back(point_from_json(j, origin));
  for (const auto& n : doc.value("notes", std::vector<std::string>{})) r.notes.push_back(n);
  return r;
}

}  // namespace kvb
