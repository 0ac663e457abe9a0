// The report's first lines: the recommended --kv-offloading-size, its basis and the command,
// and the simulated curve with the knee, vLLM's floor and the host-DRAM cap marked.
#include <fmt/format.h>

#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

std::string curve_chart(const SizeRowView& r, const RecommendationView& v) {
  LineChart chart;
  chart.title = fmt::format("{} on {}: tier size curve (simulated)", r.model, r.hardware);
  chart.x_label = "--kv-offloading-size (GiB, all ranks)";
  chart.y_label = "gain vs no tier (%)";
  ChartSeries gain{.name = v.objective + " gain", .points = {}, .dashed = false};
  ChartSeries hits{.name = "CPU-tier hit rate", .points = {}, .dashed = true};
  for (const auto& p : v.curve) {
    gain.points.push_back({.x = p.kv_offloading_size_gib, .y = 100 * p.gain, .low = 0, .high = 0});
    hits.points.push_back({.x = p.kv_offloading_size_gib, .y = 100 * p.cpu_hit_rate, .low = 0, .high = 0});
  }
  chart.series = {gain, hits};
  if (v.pays) chart.markers.push_back({v.kv_offloading_size_gib, fmt::format("recommended {:g} GiB", v.kv_offloading_size_gib)});
  chart.markers.push_back({v.floor_gib, fmt::format("vLLM floor {:.0f} GiB", v.floor_gib)});
  chart.markers.push_back({v.cap_gib, fmt::format("DRAM cap {:.0f} GiB", v.cap_gib)});
  return render_line_chart(chart);
}

}  // namespace

std::string recommendation_section_html(const std::vector<SizeRowView>& rows) {
  // The simulated recommendation when there is one (it answers for the operator's traffic),
  // else the first rule-based one.
  const SizeRowView* pick = nullptr;
  for (const auto& r : rows) {
    if (!r.recommendation) continue;
    if (!pick || (r.recommendation->basis == "simulation" && pick->recommendation->basis != "simulation")) pick = &r;
  }
  if (pick == nullptr) return {};
  const auto& v = *pick->recommendation;
  std::string out = "<section id=\"recommendation\"><h2>Recommendation</h2>\n<p><strong>";
  out += v.kv_offloading_size_gib > 0
             ? fmt::format("--kv-offloading-size {:g}", v.kv_offloading_size_gib)
             : std::string("No CPU tier: offloading does not pay for this traffic");
  out += fmt::format("</strong> for {} on {} (TP {}) &#8212; basis: {}{}; bound: {}.</p>\n", html_escape(pick->model),
                     html_escape(pick->hardware), pick->tp,
                     v.basis == "simulation" ? "simulation of " + html_escape(v.workload) : std::string("sizing rule"),
                     v.objective.empty() ? std::string() : ", objective " + html_escape(v.objective),
                     html_escape(v.bound));
  out += "<p>" + html_escape(v.why) + "</p>\n";
  out += "<pre>" + html_escape(pick->vllm_command) + "</pre>\n";
  if (!v.curve.empty()) {
    out += "<div class=\"charts\">" + curve_chart(*pick, v) + "</div>\n";
  } else {
    out += "<p class=\"small\">No traffic was simulated for this figure: <code>kvbench size --workload NAME</code> "
           "simulates yours and recommends the knee of the curve.</p>\n";
  }
  return out + "</section>\n";
}

}  // namespace kvb
