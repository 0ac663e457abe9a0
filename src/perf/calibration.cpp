#include "perf/calibration.hpp"

#include <fmt/format.h>

#include <map>

#include "catalog/embedded_files.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/yaml_reader.hpp"

namespace kvb {
namespace {

double fraction(const YamlObject& o, const std::string& key, double fallback) {
  const double v = o.real_or(key, fallback);
  if (!(v >= kMinEfficiency && v <= 1.0)) {
    throw UsageError(fmt::format("{}: key '{}' is {:g}; expected a fraction of peak from {:g} to 1",
                                 o.origin(), key, v, kMinEfficiency));
  }
  return v;
}

}  // namespace

Calibration calibration_with(const YamlObject& o, Calibration c) {
  if (o.has("compute-efficiency")) c.compute_efficiency = fraction(o, "compute-efficiency", 0);
  if (o.has("memory-efficiency")) c.memory_efficiency = fraction(o, "memory-efficiency", 0);
  if (o.has("step-overhead-us"))
    c.step_overhead_s = o.real_in("step-overhead-us", 0, kMaxStepOverheadUs, 0) * 1e-6;
  if (o.has("attention-efficiency")) c.attention_efficiency = fraction(o, "attention-efficiency", 0.5);
  if (o.has("request-overhead-us"))
    c.request_overhead_s = o.real_in("request-overhead-us", 0, kMaxStepOverheadUs, 0) * 1e-6;
  if (o.has("load-efficiency")) c.load_efficiency = fraction(o, "load-efficiency", 0);
  if (o.has("gemm-half-tokens")) c.gemm_half_tokens = o.real_in("gemm-half-tokens", 0, 1e5, 0);
  if (o.has("measured")) {
    const auto m = o.object("measured");
    c.origin.measured = true;
    c.origin.device = m.str_or("device", "");
    c.origin.model = m.str_or("model", "");
  }
  // `measured`: what `kvbench calibrate` timed, kept with the figures for the reader; not read.
  o.reject_unknown_keys({"compute-efficiency", "memory-efficiency", "step-overhead-us",
                         "attention-efficiency", "request-overhead-us", "load-efficiency", "gemm-half-tokens",
                         "measured"});
  return c;
}

Calibration parse_calibration(const YamlObject& o, const std::string& file) {
  Calibration c;
  // The default overhead as a file stating it in microseconds gives it, to the last bit.
  c.step_overhead_s = c.step_overhead_s * 1e6 * 1e-6;
  c.origin.from = CalibrationFrom::kFile;
  c.origin.file = file;
  return calibration_with(o, c);
}

namespace {

// The class's key and runs, as scenarios/fidelity/<hw>.yaml and scenarios/single-user/<hw>.yaml
// spell them.
void read_server_class(const YamlObject& c, ServerClass& s) {
  s.moe = c.boolean_or("moe", false);
  s.weights = c.str("weights");
  s.ranks = static_cast<int>(c.integer_in("ranks", 1, 4096, 1));
  s.runs = c.integer_in("runs", 1, 1000000, 1);
  s.runs_described = c.str("runs_described");
}

// "TTFT mean within 5.2%, E2E mean within 2.9% ..." per class of servers scored, from
// scenarios/fidelity/<hw>.yaml, which tests/fidelity/fidelity.py writes from its last run (and a
// test re-checks).
std::vector<ScoredClass> fidelity_from(const CatalogEntry& e) {
  const auto y = YamlObject::parse(std::string(e.content), e.origin);
  std::vector<ScoredClass> out;
  for (const auto& name : y.str_list_or("scored_classes")) {
    const auto c = y.object(name);
    ScoredClass s;
    read_server_class(c, s);
    s.ttft_mean = c.real_in("ttft_mean_abs_error", 0, 10, 0);
    s.e2e_mean = c.real_in("e2e_mean_abs_error", 0, 10, 0);
    s.ttft_worst = c.real_in("ttft_worst_abs_error", 0, 10, 0);
    s.e2e_worst = c.real_in("e2e_worst_abs_error", 0, 10, 0);
    out.push_back(std::move(s));
  }
  return out;
}

// Read once: default_calibration runs for every simulation set-up (each sweep point, each fit step).
const std::vector<ScoredClass>* fidelity_of(const std::string& hw) {
  static const std::map<std::string, std::vector<ScoredClass>> scored = [] {
    std::map<std::string, std::vector<ScoredClass>> out;
    for (const auto& e : catalog_entries("fidelity")) out.emplace(e.name, fidelity_from(e));
    return out;
  }();
  const auto it = scored.find(hw);
  return it == scored.end() ? nullptr : &it->second;
}

}  // namespace

Calibration default_calibration(const HardwareSpec& hw) {
  Calibration c;
  const auto& t = hw.measured_time_model;
  if (t.source.empty()) return c;
  c.compute_efficiency = t.compute_efficiency;
  c.memory_efficiency = t.memory_efficiency;
  c.step_overhead_s = t.step_overhead_us * 1e-6;
  if (t.attention_efficiency > 0) c.attention_efficiency = t.attention_efficiency;
  c.request_overhead_s = t.request_overhead_us * 1e-6;
  if (t.load_efficiency > 0) c.load_efficiency = t.load_efficiency;
  c.gemm_half_tokens = t.gemm_half_tokens;
  c.origin.from = CalibrationFrom::kHardwareTable;
  c.origin.hardware = hw.name;
  c.origin.fitted_to = t.source;
  if (const auto* f = fidelity_of(hw.name)) c.scored = *f;
  return c;
}

Calibration load_calibration(const std::string& path) {
  return parse_calibration(YamlObject::parse(read_text_file(path, "--calibration"), path), path);
}

const ScoredClass* scored_class_of(const ExpectedError& e) {
  if (e.one_in_flight) return nullptr;
  for (const auto& c : e.scored) {
    if (c.moe == e.moe && c.weights == e.weights && c.ranks == e.ranks) return &c;
  }
  return nullptr;
}

namespace {

std::vector<OneInFlightClass> one_in_flight_from(const CatalogEntry& e) {
  const auto y = YamlObject::parse(std::string(e.content), e.origin);
  std::vector<OneInFlightClass> out;
  for (const auto& name : y.str_list_or("one_in_flight_classes")) {
    const auto c = y.object(name);
    OneInFlightClass s;
    read_server_class(c, s);
    s.tpot_error_min = c.real_in("tpot_error_min", -1, 10, 0);
    s.tpot_error_max = c.real_in("tpot_error_max", -1, 10, 0);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

const std::map<std::string, std::vector<OneInFlightClass>>& one_in_flight_classes() {
  static const std::map<std::string, std::vector<OneInFlightClass>> classes = [] {
    std::map<std::string, std::vector<OneInFlightClass>> out;
    for (const auto& e : catalog_entries("single-user")) out.emplace(e.name, one_in_flight_from(e));
    return out;
  }();
  return classes;
}

const OneInFlightClass* one_in_flight_class_of(const ExpectedError& e) {
  for (const auto& c : e.at_one) {
    if (c.moe == e.moe && c.weights == e.weights && c.ranks == e.ranks) return &c;
  }
  return nullptr;
}

}  // namespace kvb
