#include "output/calibrate_output.hpp"

#include <fmt/format.h>

#include <cmath>

#include "output/text_table.hpp"

namespace kvb {
namespace {

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }

}  // namespace

std::string calibration_text(const CalibrationResult& r) {
  std::string out = fmt::format("kvbench calibrate: {} ({}), {} at TP {}, against {} (bf16 {:.0f} TFLOP/s, HBM {:.0f} GB/s)\n",
                                r.device, r.runtime, r.model, r.tp, r.hw, r.peak_tflops, r.hbm_peak_gbps);
  out += fmt::format("HBM: a {:.2f} GiB device-to-device copy moves {:.0f} GB/s (read + write), {:.0f}% of the table's peak\n\n",
                     static_cast<double>(r.hbm_copy_bytes) / (1024.0 * 1024 * 1024), r.hbm_copy_gbps,
                     100 * r.hbm_copy_gbps / r.hbm_peak_gbps);
  TextTable t({"regime", "size", "GEMM/layer ms", "GEMM TFLOP/s", "forward ms", "compute eff", "memory eff", "bound",
               "fitted ms", "error"});
  for (const auto& p : r.points) {
    if (!p.skipped.empty()) {
      t.add_spanning_row({p.regime, point_label(p), "skipped: " + p.skipped});
      continue;
    }
    const double err = p.predicted_s / p.forward_s - 1;
    t.add_row({p.regime, point_label(p), ms(p.layer_gemm_s), fmt::format("{:.0f}", p.gemm_tflops), ms(p.forward_s),
               fmt::format("{:.3f}", p.compute_efficiency), fmt::format("{:.3f}", p.memory_efficiency), p.bound,
               ms(p.predicted_s), fmt::format("{:+.1f}%", 100 * err)});
  }
  out += t.render();
  out += fmt::format("\nfitted: compute-efficiency {:.3f} (compute-bound prefill points), memory-efficiency {:.3f} "
                     "(memory-bound decode points), step-overhead-us {:.0f} ({})\n",
                     r.fitted.compute_efficiency, r.fitted.memory_efficiency, r.fitted.step_overhead_s * 1e6,
                     r.step_overhead_source);
  out += fmt::format("without this file runs use: compute-efficiency {:.3f}, memory-efficiency {:.3f}, "
                     "step-overhead-us {:.0f} ({})\n",
                     r.reference.compute_efficiency, r.reference.memory_efficiency, r.reference.step_overhead_s * 1e6,
                     r.reference.source);
  for (const auto& n : r.notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace kvb
