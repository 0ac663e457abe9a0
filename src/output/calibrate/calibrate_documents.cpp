#include "output/calibrate/calibrate_documents.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "calibrate/calibration_file.hpp"
#include "core/path_text.hpp"
#include "output/calibrate/calibrate_output.hpp"
#include "output/common/time_model_text.hpp"
#include "server/server_json.hpp"

namespace kvb {
namespace {

// Four significant digits: a measurement, not a bit pattern.
double rounded(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
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

}  // namespace

std::vector<std::string> calibration_run_notes(const CalibrationResult& r) {
  const auto& f = r.ffn_width;
  return {
      "GEMMs: " + r.runtime + ", bf16 in and out, fp32 accumulation, PyTorch's linear layout",
      "FFN width: " +
          (f.derived ? fmt::format("{} derived from {}B parameters (no intermediate_size in the catalog)",
                                   f.total, f.params_b)
                     : fmt::format("intermediate_size {} (config.json)", f.total)),
      "modelled, not timed: prefill attention at each point's GEMM rate (flash attention is not in the BLAS "
      "library), decode attention as its KV cache reads at the measured copy bandwidth (paged decode kernels "
      "are "
      "memory-bound), elementwise work at the measured copy bandwidth, tensor-parallel communication (not in "
      "the "
      "time model)",
      "step overhead (not measurable from operators): " + r.step_overhead_source};
}

nlohmann::json calibration_json(const CalibrationResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) points.push_back(point_json(p));
  nlohmann::json doc = {
      {"schema", kCalibrateSchema},
      {"device", r.device},
      {"runtime", r.runtime},
      {"calibration",
       {{"compute_efficiency", rounded(r.fitted.compute_efficiency)},
        {"memory_efficiency", rounded(r.fitted.memory_efficiency)},
        {"step_overhead_us", rounded(r.fitted.step_overhead_s * 1e6)},
        {"step_overhead_source", r.step_overhead_source}}},
      {"without_this_file",
       {{"compute_efficiency", r.reference.compute_efficiency},
        {"memory_efficiency", r.reference.memory_efficiency},
        {"step_overhead_us", rounded(r.reference.step_overhead_s * 1e6)},
        {"source", calibration_origin_text(r.reference.origin)}}},
      {"peak_tflops", r.peak_tflops},
      {"hbm_peak_gbps", r.hbm_peak_gbps},
      {"hbm_copy_gbps", rounded(r.hbm_copy_gbps)},
      {"hbm_copy_bytes", r.hbm_copy_bytes},
      {"points", points},
      {"notes", r.notes},
  };
  write_server_json(r.server, doc);
  return doc;
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
      date, r.device, r.runtime, r.server.model, r.server.tensor_parallel_size, r.step_overhead_source,
      e.c_str());
}

std::string vllm_fit_yaml(const VllmFit& fit, const std::string& date) {
  const auto& c = fit.fitted;
  std::string out = fmt::format(
      "# kvbench calibrate --from-vllm, {}: the time model fitted to a real vLLM server's\n"
      "# per-request results (means of TTFT, TPOT and E2E). Use: kvbench simulate|size "
      "--calibration FILE\n",
      date);
  for (std::size_t i = 0; i < fit.with_fit.size(); ++i) {
    const auto& f = fit.with_fit[i];
    const auto& d = fit.with_start[i];
    const auto pct = [](double sim, double real) { return real > 0 ? 100 * (sim - real) / real : 0.0; };
    out += fmt::format(
        "# {} ({} requests; {}): E2E mean error {:+.1f}% fitted, {:+.1f}% at the start ({}); "
        "TTFT {:+.1f}% / {:+.1f}%; TPOT {:+.1f}% / {:+.1f}% (fitted / start)\n",
        printable_path(f.path), f.requests, printable_text(run_origin_text(fit.origins[i])),
        pct(f.simulated_e2e, f.measured_e2e), pct(d.simulated_e2e, d.measured_e2e),
        printable_text(calibration_origin_text(fit.start.origin)), pct(f.simulated_ttft, f.measured_ttft),
        pct(d.simulated_ttft, d.measured_ttft), pct(f.simulated_tpot, f.measured_tpot),
        pct(d.simulated_tpot, d.measured_tpot));
  }
  out += fmt::format(
      "compute-efficiency: {:.4f}\nmemory-efficiency: {:.4f}\nstep-overhead-us: {:.1f}\n"
      "request-overhead-us: {:.1f}\n",
      c.compute_efficiency, c.memory_efficiency, c.step_overhead_s * 1e6, c.request_overhead_s * 1e6);
  if (c.attention_efficiency) out += fmt::format("attention-efficiency: {:.4f}\n", *c.attention_efficiency);
  if (c.gemm_half_tokens > 0) out += fmt::format("gemm-half-tokens: {:.1f}\n", c.gemm_half_tokens);
  out += fmt::format("load-efficiency: {:.4f}\n", c.load_efficiency);
  return out;
}

}  // namespace kvb
