#include "output/calibrate/calibrate_output.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/common/text_table.hpp"
#include "output/common/time_model_text.hpp"

namespace kvb {

std::string point_label(const CalibrationPoint& p) {
  return p.regime == "prefill" ? fmt::format("{} tokens", p.tokens)
                               : fmt::format("batch {} @ {}", p.tokens, p.context);
}
namespace {

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }

}  // namespace

std::string calibration_text(const CalibrationResult& r) {
  std::string out = fmt::format(
      "kvbench calibrate: {} ({}), {} at TP {}, against {} (bf16 {:.0f} TFLOP/s, HBM {:.0f} GB/s)\n",
      r.device, r.runtime, r.server.model, r.server.tensor_parallel_size, r.server.hardware, r.peak_tflops,
      r.hbm_peak_gbps);
  out += fmt::format(
      "HBM: a {:.2f} GiB device-to-device copy moves {:.0f} GB/s (read + write), {:.0f}% of the table's "
      "peak\n\n",
      static_cast<double>(r.hbm_copy_bytes) / (1024.0 * 1024 * 1024), r.hbm_copy_gbps,
      100 * r.hbm_copy_gbps / r.hbm_peak_gbps);
  TextTable t({"regime", "size", "GEMM/layer ms", "GEMM TFLOP/s", "forward ms", "compute eff", "memory eff",
               "bound", "fitted ms", "error"});
  for (const auto& p : r.points) {
    if (!p.skipped.empty()) {
      t.add_spanning_row({p.regime, point_label(p), "skipped: " + p.skipped});
      continue;
    }
    const double err = p.predicted_s / p.forward_s - 1;
    t.add_row({p.regime, point_label(p), ms(p.layer_gemm_s), fmt::format("{:.0f}", p.gemm_tflops),
               ms(p.forward_s), fmt::format("{:.3f}", p.compute_efficiency),
               fmt::format("{:.3f}", p.memory_efficiency), p.bound, ms(p.predicted_s),
               fmt::format("{:+.1f}%", 100 * err)});
  }
  out += t.render();
  out += fmt::format(
      "\nfitted: compute-efficiency {:.3f} (compute-bound prefill points), memory-efficiency {:.3f} "
      "(memory-bound decode points), step-overhead-us {:.0f} ({})\n",
      r.fitted.compute_efficiency, r.fitted.memory_efficiency, r.fitted.step_overhead_s * 1e6,
      r.step_overhead_source);
  out += fmt::format(
      "without this file runs use: compute-efficiency {:.3f}, memory-efficiency {:.3f}, "
      "step-overhead-us {:.0f} ({})\n",
      r.reference.compute_efficiency, r.reference.memory_efficiency, r.reference.step_overhead_s * 1e6,
      calibration_origin_text(r.reference.origin));
  for (const auto& n : r.notes) out += "  - " + n + "\n";
  return out;
}

std::string arrivals_text(const ArrivalsSource& a) {
  if (!a.field.empty()) return a.field;
  return fmt::format("not in the file: a Poisson process at its request_rate {:g}/s (seed 1)",
                     a.poisson_rate);
}

namespace {
std::string requests_text(std::int64_t n) {
  return fmt::format("{} request{}", format_count(n), n == 1 ? "" : "s");
}
}  // namespace

std::string run_origin_text(const RunOrigin& o) {
  const auto& left = o.left_out;
  std::string out = fmt::format("{}, arrivals from {}; ", o.client, arrivals_text(o.arrivals));
  if (left.failed == 0 && left.without_latency == 0) return out + "every request fitted";
  out += "left out of the fit: ";
  if (left.failed > 0)
    out += fmt::format("{} the client recorded as failed (or without an output token)",
                       requests_text(left.failed));
  if (left.failed > 0 && left.without_latency > 0) out += ", ";
  if (left.without_latency > 0)
    out += fmt::format("{} without a TTFT or an end-to-end latency", requests_text(left.without_latency));
  return out;
}

std::string vllm_fit_text(const VllmFit& fit) {
  const auto& c = fit.fitted;
  std::string out = fmt::format(
      "kvbench calibrate --from-vllm: {} run(s) replayed request by request, {} simulations\n"
      "fitted: compute-efficiency {:.3f}, memory-efficiency {:.3f}, step-overhead-us {:.0f}, "
      "request-overhead-us {:.0f}\n"
      "start ({}): compute-efficiency {:.3f}, memory-efficiency {:.3f}, step-overhead-us "
      "{:.0f}, request-overhead-us {:.0f}\n\n",
      fit.with_fit.size(), fit.evaluations, c.compute_efficiency, c.memory_efficiency,
      c.step_overhead_s * 1e6, c.request_overhead_s * 1e6, calibration_origin_text(fit.start.origin),
      fit.start.compute_efficiency, fit.start.memory_efficiency, fit.start.step_overhead_s * 1e6,
      fit.start.request_overhead_s * 1e6);
  TextTable t({"run", "requests", "metric", "measured", "fitted", "error", "start", "error"});
  const auto pct = [](double sim, double real) {
    return real > 0 ? fmt::format("{:+.1f}%", 100 * (sim - real) / real) : "-";
  };
  for (std::size_t i = 0; i < fit.with_fit.size(); ++i) {
    const auto& f = fit.with_fit[i];
    const auto& d = fit.with_start[i];
    const std::pair<const char*, std::array<double, 3>> rows[] = {
        {"TTFT mean", {f.measured_ttft, f.simulated_ttft, d.simulated_ttft}},
        {"TPOT mean", {f.measured_tpot, f.simulated_tpot, d.simulated_tpot}},
        {"E2E mean", {f.measured_e2e, f.simulated_e2e, d.simulated_e2e}}};
    for (const auto& [metric, v] : rows) {
      t.add_row({printable_path(f.path), format_count(f.requests), metric, format_seconds(v[0]),
                 format_seconds(v[1]), pct(v[1], v[0]), format_seconds(v[2]), pct(v[2], v[0])});
    }
  }
  out += t.render();
  out += "\n";
  for (std::size_t i = 0; i < fit.with_fit.size() && i < fit.origins.size(); ++i)
    out += fmt::format("{}: {}\n", printable_path(fit.with_fit[i].path), run_origin_text(fit.origins[i]));
  out += "Simulated (the fitted and the start columns) from the stated time model; measured: the files.\n";
  return out;
}

}  // namespace kvb
