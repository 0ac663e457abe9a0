// The calibration section: what `kvbench calibrate` timed on a GPU, each point's forward and
// efficiencies, and the fitted figures beside those runs use without the file. Absent (no
// placeholder) when no calibrate result was given: calibration is optional.
#include <fmt/format.h>

#include "output/calibrate/calibrate_output.hpp"
#include "output/common/time_model_text.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {
namespace {

std::string one_calibration(const CalibrationResult& c) {
  std::string out =
      fmt::format("<h3>{}, {} at TP {} (against {}: bf16 {:.0f} TFLOP/s, HBM {:.0f} GB/s)</h3>\n",
                  html_escape(c.device), html_escape(c.server.model), c.server.tensor_parallel_size,
                  html_escape(c.server.hardware), c.peak_tflops, c.hbm_peak_gbps);
  out += fmt::format(
      "<p>Fitted: compute-efficiency <b>{:.3f}</b>, memory-efficiency <b>{:.3f}</b>, step overhead "
      "{:.0f} us ({}). Without this file runs use {:.3f} / {:.3f} / {:.0f} us ({}). HBM copy {:.0f} GB/s "
      "(measured).</p>\n",
      c.fitted.compute_efficiency, c.fitted.memory_efficiency, c.fitted.step_overhead_s * 1e6,
      html_escape(c.step_overhead_source), c.reference.compute_efficiency, c.reference.memory_efficiency,
      c.reference.step_overhead_s * 1e6, html_escape(calibration_origin_text(c.reference.origin)),
      c.hbm_copy_gbps);
  out +=
      "<table class=\"data\"><thead><tr><th>regime</th><th>size</th><th>GEMM/layer ms</th><th>GEMM "
      "TFLOP/s</th>"
      "<th>forward ms</th><th>compute eff</th><th>memory eff</th><th>bound</th><th>fitted "
      "ms</th><th>error</th>"
      "</tr></thead><tbody>\n";
  for (const auto& p : c.points) {
    if (!p.skipped.empty()) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td colspan=\"8\">skipped: {}</td></tr>\n", p.regime,
                         point_label(p), html_escape(p.skipped));
      continue;
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.0f}</td><td "
        "class=\"num\">{:.2f}"
        "</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.3f}</td><td>{}</td><td "
        "class=\"num\">{:.2f}</td>"
        "<td class=\"num\">{:+.1f}%</td></tr>\n",
        p.regime, point_label(p), p.layer_gemm_s * 1e3, p.gemm_tflops, p.forward_s * 1e3,
        p.compute_efficiency, p.memory_efficiency, html_escape(p.bound), p.predicted_s * 1e3,
        100 * (p.predicted_s / p.forward_s - 1));
  }
  out += "</tbody></table>\n";
  if (!c.notes.empty()) {
    out += "<ul class=\"small\">\n";
    for (const auto& n : c.notes) out += "<li>" + html_escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

}  // namespace

std::string calibration_section_html(const std::vector<CalibrationResult>& calibrations) {
  if (calibrations.empty()) return {};
  std::string out =
      "<section id=\"calibrate\"><h2>Calibration (<code>kvbench calibrate</code>, measured GEMMs, "
      "modelled forward)</h2>\n";
  out +=
      "<p>One layer's GEMMs timed on the GPU per point and multiplied by the layers; prefill attention at "
      "the "
      "point's GEMM rate and elementwise work at the measured copy bandwidth are modelled. The efficiencies "
      "are the "
      "time model's FLOPs and bytes over the forward.</p>\n";
  for (const auto& c : calibrations) out += one_calibration(c);
  return out + "</section>\n";
}

}  // namespace kvb
