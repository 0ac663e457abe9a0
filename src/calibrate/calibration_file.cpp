#include "calibrate/calibration_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "size/serve_settings.hpp"

namespace kvb {
namespace {

// Four significant digits: a measurement, not a bit pattern.
double rounded(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

YAML::Node to_yaml_node(const nlohmann::json& j) {
  YAML::Node n;
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) n[k] = to_yaml_node(v);
  } else if (j.is_array()) {
    for (const auto& v : j) n.push_back(to_yaml_node(v));
  } else if (j.is_string()) {
    n = j.get<std::string>();
  } else if (j.is_boolean()) {
    n = j.get<bool>();
  } else if (j.is_number_integer()) {
    n = j.get<long long>();
  } else if (j.is_number()) {
    n = j.get<double>();
  }
  return n;
}

nlohmann::json point_json(const CalibrationPoint& p) {
  nlohmann::json j{{"regime", p.regime}, {p.regime == "prefill" ? "tokens" : "batch", p.tokens}};
  if (p.regime == "decode") j["context"] = p.context;
  if (!p.skipped.empty()) {
    j["skipped"] = p.skipped;
    return j;
  }
  j["layer_gemm_ms"] = rounded(p.layer_gemm_s * 1e3);
  j["gemm_tflops"] = rounded(p.gemm_tflops);
  j["attention_ms_modelled"] = rounded(p.attention_s * 1e3);
  j["elementwise_ms_modelled"] = rounded(p.elementwise_s * 1e3);
  j["lm_head_ms"] = rounded(p.lm_head_s * 1e3);
  j["forward_ms"] = rounded(p.forward_s * 1e3);
  j["predicted_ms"] = rounded(p.predicted_s * 1e3);
  j["compute_efficiency"] = rounded(p.compute_efficiency);
  j["memory_efficiency"] = rounded(p.memory_efficiency);
  j["bound"] = p.bound;
  j["spread"] = rounded(p.spread);
  j["weight_sets"] = p.weight_sets;
  return j;
}

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

nlohmann::json calibration_json(const CalibrationResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) points.push_back(point_json(p));
  return {
      {"schema", kCalibrateSchema},
      {"device", r.device},
      {"runtime", r.runtime},
      {"model", r.model},
      {"hardware", r.hw},
      {"tensor_parallel_size", r.tp},
      {"calibration",
       {{"compute_efficiency", rounded(r.fitted.compute_efficiency)},
        {"memory_efficiency", rounded(r.fitted.memory_efficiency)},
        {"step_overhead_us", rounded(r.fitted.step_overhead_s * 1e6)},
        {"step_overhead_source", r.step_overhead_source}}},
      {"without_this_file",
       {{"compute_efficiency", r.reference.compute_efficiency},
        {"memory_efficiency", r.reference.memory_efficiency},
        {"step_overhead_us", rounded(r.reference.step_overhead_s * 1e6)},
        {"source", r.reference.source}}},
      {"peak_tflops", r.peak_tflops},
      {"hbm_peak_gbps", r.hbm_peak_gbps},
      {"hbm_copy_gbps", rounded(r.hbm_copy_gbps)},
      {"hbm_copy_bytes", r.hbm_copy_bytes},
      {"points", points},
      {"notes", r.notes},
  };
}

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
  r.model = doc.at("model").get<std::string>();
  r.hw = doc.at("hardware").get<std::string>();
  r.tp = static_cast<int>(json_integer_in(doc, "tensor_parallel_size", 1, kMaxParallelRanks, origin));
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
    r.reference.source = ref.value("source", "");
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

std::string calibration_yaml(const CalibrationResult& r, const std::string& date) {
  const auto j = calibration_json(r);
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "compute-efficiency" << YAML::Value
    << j["calibration"]["compute_efficiency"].get<double>();
  e << YAML::Key << "memory-efficiency" << YAML::Value << j["calibration"]["memory_efficiency"].get<double>();
  e << YAML::Key << "step-overhead-us" << YAML::Value << j["calibration"]["step_overhead_us"].get<double>();
  e << YAML::Key << "measured" << YAML::Value << to_yaml_node(j);
  e << YAML::EndMap;
  return fmt::format(
      "# kvbench calibrate, {}: {} ({}), {} at tensor-parallel-size {}.\n"
      "# compute-efficiency: fitted to the compute-bound prefill points; memory-efficiency: to the\n"
      "# memory-bound decode points; step-overhead-us: {}.\n"
      "# Read by: kvbench simulate --calibration FILE, kvbench size --calibration FILE.\n{}\n",
      date, r.device, r.runtime, r.model, r.tp, r.step_overhead_source, e.c_str());
}

}  // namespace kvb
