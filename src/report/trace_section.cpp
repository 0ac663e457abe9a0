// The trace section: what a recorded trace's prefix cache would serve at each size (counted by
// `kvbench trace`, not simulated). Absent when no trace result was given.
#include <fmt/format.h>

#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

std::string one_trace(const TraceDocument& d) {
  const auto& t = d.analysis;
  const double gib_per_block = block_gib(t, d.cost);
  std::string out = fmt::format("<h3>{} ({}): {} requests over {:.0f} s</h3>\n", html_escape(t.path),
                                html_escape(to_string(t.format)), t.requests, t.duration_s);
  out += fmt::format(
      "<p>An unbounded prefix cache serves {:.1f}% of prompt tokens; holding every distinct block "
      "would take {:.0f} GiB for {} on {}.</p>\n",
      100 * t.unbounded_prefix_hit_rate, static_cast<double>(t.distinct_blocks) * gib_per_block,
      html_escape(d.cost.server.model), html_escape(d.cost.server.hardware));
  LineChart chart;
  chart.title = fmt::format("{}: prefix cache size vs hit rate (counted)", d.cost.server.model);
  chart.x_label = "cache size (GiB of KV, all ranks; log scale)";
  chart.y_label = "prefix hit rate (% of prompt tokens)";
  chart.log2_x = true;
  chart.x_format = [](double gib) {
    return gib >= 10 ? fmt::format("{:.0f}", gib) : fmt::format("{:.2g}", gib);
  };
  ChartSeries s{.name = "LRU prefix cache", .points = {}, .dashed = false};
  for (const auto& p : t.curve) {
    s.points.push_back({.x = static_cast<double>(p.blocks) * gib_per_block,
                        .y = 100 * p.prefix_hit_rate,
                        .low = 0,
                        .high = 0});
  }
  chart.series = {s};
  return out + "<div class=\"charts\">" + render_line_chart(chart) + "</div>\n";
}

}  // namespace

std::string trace_section_html(const std::vector<TraceDocument>& traces) {
  if (traces.empty()) return {};
  std::string out = "<section id=\"trace\"><h2>Traces (<code>kvbench trace</code>, counted)</h2>\n";
  out +=
      "<p>Counted from recorded requests: the share of prompt tokens an LRU prefix cache of each size would "
      "have "
      "served, a block counting only when every block before it in its request hit. Nothing here is "
      "simulated.</p>\n";
  for (const auto& t : traces) out += one_trace(t);
  return out + "</section>\n";
}

}  // namespace kvb
