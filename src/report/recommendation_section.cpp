// The report's first lines: the recommended --kv-offloading-size, its basis and the command,
// and the simulated curve with the knee, vLLM's floor and the host-DRAM cap marked.
#include <fmt/format.h>

#include "output/common/expected_error_text.hpp"
#include "output/size/tier_advice_text.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

// The objective's own quantity, signed as it moves: a TTFT cut is negative (the text's -79.6%),
// a throughput or goodput rise positive. `gain` is the improvement either way.
struct ObjectiveAxis {
  std::string label;
  double sign;
};

ObjectiveAxis objective_axis(std::optional<TierObjective> objective) {
  if (objective == TierObjective::kTtftP99) return {"TTFT p99 vs no tier (%, below 0 = faster)", -1};
  if (objective == TierObjective::kGoodput) return {"goodput vs no tier (%)", 1};
  return {"output tok/s vs no tier (%)", 1};
}

LineChart tier_chart(const Sizing& r, const TierRecommendation& v, std::string what) {
  LineChart chart;
  chart.title = fmt::format("{} on {}: {} by tier size (simulated)", r.server.model, r.server.hardware, what);
  chart.x_label = "--kv-offloading-size (GiB, all ranks)";
  if (v.pays)
    chart.markers.push_back(
        {v.kv_offloading_size_gib, fmt::format("recommended {:g} GiB", v.kv_offloading_size_gib)});
  chart.markers.push_back({v.floor_gib, fmt::format("vLLM floor {:.0f} GiB", v.floor_gib)});
  chart.markers.push_back({v.cap_gib, fmt::format("DRAM cap {:.0f} GiB", v.cap_gib)});
  return chart;
}

// Two charts, one quantity each: the objective's change, and the share of prompt tokens the tier serves.
std::string curve_charts(const Sizing& r, const TierRecommendation& v) {
  const auto metric = v.decided_by;  // the reader falls back to the objective for older files
  const auto axis = objective_axis(metric);
  auto change = tier_chart(r, v, "effect");
  change.y_label = axis.label;
  ChartSeries moved{
      .name = metric ? to_string(*metric) : std::string("change"), .points = {}, .dashed = false};
  auto hits = tier_chart(r, v, "CPU-tier hits");
  hits.y_label = "CPU-tier hits (% of prompt tokens)";
  ChartSeries hit{.name = "CPU-tier hit rate", .points = {}, .dashed = true};
  for (const auto& p : v.curve) {
    // The band: the gain's spread over the workload draws (none for one draw).
    const double y = axis.sign * 100 * p.gain, band = 100 * p.gain_spread;
    moved.points.push_back({.x = p.kv_offloading_size_gib, .y = y, .low = y - band, .high = y + band});
    hit.points.push_back({.x = p.kv_offloading_size_gib, .y = 100 * p.cpu_hit_rate, .low = 0, .high = 0});
  }
  change.series = {moved};
  hits.series = {hit};
  if (!v.trace_curve.empty()) {
    // size --trace: what the trace says a cache of each size serves, beside what the simulated
    // server served (GPU prefix cache + CPU tier) at each simulated size.
    hits.title =
        fmt::format("{} on {}: prompt tokens served by tier size (trace curve counted, hits simulated)",
                    r.server.model, r.server.hardware);
    hits.y_label = "prompt tokens served (%)";
    ChartSeries served{.name = "GPU + CPU-tier hits (simulated)", .points = {}, .dashed = false};
    ChartSeries counted{
        .name = "trace miss-ratio curve (counted)", .points = {}, .dashed = true, .x_ticks = false};
    for (const auto& p : v.curve) {
      served.points.push_back(
          {.x = p.kv_offloading_size_gib, .y = 100 * (p.gpu_hit_rate + p.cpu_hit_rate), .low = 0, .high = 0});
    }
    for (const auto& [gib, rate] : v.trace_curve)
      counted.points.push_back({.x = gib, .y = 100 * rate, .low = 0, .high = 0});
    hits.series = {served, counted, hit};
  }
  return render_line_chart(change) + render_line_chart(hits);
}

}  // namespace

std::string recommendation_section_html(const std::vector<Sizing>& rows, const std::string& hardware_basis) {
  // The simulated recommendation when there is one (it answers for the operator's traffic),
  // else the first rule-based one. A configuration whose weights do not fit has none.
  const Sizing* pick = nullptr;
  for (const auto& r : rows) {
    if (!r.offload) continue;
    if (!pick || (r.offload->recommendation.simulated() && !pick->offload->recommendation.simulated()))
      pick = &r;
  }
  if (pick == nullptr) return {};
  const auto& v = pick->offload->recommendation;
  std::string out = "<section id=\"recommendation\"><h2>Recommendation</h2>\n";
  if (!hardware_basis.empty()) out += "<p class=\"basis\">" + html_escape(hardware_basis) + "</p>\n";
  out += "<p><strong>";
  out += v.kv_offloading_size_gib > 0 ? fmt::format("--kv-offloading-size {:g}", v.kv_offloading_size_gib)
         : v.costs                    ? std::string("No CPU tier: offloading costs this server")
                                      : std::string("No CPU tier: offloading does not pay for this traffic");
  out += fmt::format("</strong> for {} on {} (TP {}) &#8212; basis: {}{}; bound: {}.</p>\n",
                     html_escape(pick->server.model), html_escape(pick->server.hardware),
                     pick->server.tensor_parallel_size,
                     v.simulated() ? "simulation of " + html_escape(v.workload) : std::string("sizing rule"),
                     v.objective ? ", objective " + html_escape(to_string(*v.objective)) : std::string(),
                     html_escape(to_string(v.bound)));
  if (v.simulated()) {
    const auto expected = v.expected ? expected_error_text(*v.expected) : std::string();
    out += "<p class=\"small\">Expected error against real vLLM: " +
           html_escape(expected.empty() ? std::string("not scored for this calibration") : expected) +
           "</p>\n";
  }
  out += "<p>" + html_escape(recommendation_why(v)) + "</p>\n";
  out += "<pre>" + html_escape(pick->vllm_command) + "</pre>\n";
  if (!v.curve.empty()) {
    out += "<div class=\"charts\">" + curve_charts(*pick, v) + "</div>\n";
  } else {
    out +=
        "<p class=\"small\">No traffic was simulated for this figure: <code>kvbench size --workload "
        "NAME</code> "
        "simulates yours and recommends the knee of the curve.</p>\n";
  }
  return out + "</section>\n";
}

}  // namespace kvb
