// The report page: one self-contained HTML file. Inline CSS and SVG only; the
// Content-Security-Policy forbids scripts and every network fetch, so even a string that escaped
// escaping could not run or phone home.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 0 auto; max-width: 1500px;
       padding: 16px 24px; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #0072B2; padding-bottom: 4px; margin-top: 2em; }
nav a { margin-right: 1em; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
pre { background: #f4f6f8; padding: 8px 12px; overflow-x: auto; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
svg.chart { background: #fff; border: 1px solid #ddd; font-size: 12px; width: 100%; height: auto;
            box-sizing: border-box; }
svg.chart text { fill: #222; } svg.chart .chart-title { font-size: 15px; font-weight: 600; }
svg.chart .grid { stroke: #e6e6e6; } svg.chart .axis { stroke: #444; }
svg.chart .reference { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 2 3; }
svg.chart .whisker { stroke-width: 1; opacity: 0.6; } svg.chart .empty { fill: #888; }
table.data { border-collapse: collapse; margin: 10px 0; font-size: 0.9em; }
table.data th, table.data td { border: 1px solid #ccc; padding: 3px 8px; }
table.data th { background: #eef3f8; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.kv th { text-align: left; padding-right: 1.5em; vertical-align: top; }
.warn { background: #fff4e5; border-left: 4px solid #E69F00; padding: 6px 10px; }
.missing { color: #666; font-style: italic; } .small { font-size: 0.88em; color: #444; }
ul.glance li { margin: 3px 0; }
)";

// The headline: one line per thing an operator asks first.
std::string glance(const ReportInputs& in) {
  std::vector<std::string> lines;
  // dma: the fastest method near vLLM's default 2 MiB block, per direction.
  for (const Direction d : {Direction::kH2D, Direction::kD2H}) {
    const DmaRecord* best = nullptr;
    for (const auto& r : in.dma) {
      if (r.waived || !r.verified || r.tcase.direction != d || r.tcase.with_compute) continue;
      const auto dist = [](const DmaRecord& x) {
        return std::fabs(std::log2(static_cast<double>(x.tcase.block_bytes)) - 21);
      };
      if (!best || dist(r) < dist(*best) || (dist(r) == dist(*best) && r.median_gbps > best->median_gbps))
        best = &r;
    }
    if (best) {
      lines.push_back(fmt::format(
          "{} at {} blocks: {:.1f} GB/s with {} on {} ({}){} &#8212; measured", to_string(d),
          block_size_label(static_cast<double>(best->tcase.block_bytes)), best->median_gbps,
          to_string(best->tcase.method), html_escape(best->device.name), html_escape(best->device.backend),
          best->link_utilization > 0
              ? fmt::format(", {:.0f}% of the link's ceiling", 100 * best->link_utilization)
              : std::string()));
    }
  }
  // simulate: the largest TTFT p99 improvement any CPU tier gave.
  for (const auto& [origin, s] : in.simulations) {
    // TTFT p99 without the tier over with it (ttft_p99_s is positive where it is taken).
    const auto speedup = [](const SimPointRecord& p) {
      return p.vs_no_offload.baseline_ttft_p99_s / p.metrics.ttft_s.p99;
    };
    const SimPointRecord* best = nullptr;
    for (const auto& p : s.points) {
      if (!p.offloading || p.metrics.ttft_s.p99 <= 0) continue;
      if (!best || speedup(p) > speedup(*best)) best = &p;
    }
    if (best) {
      const auto& base = best->vs_no_offload;
      lines.push_back(fmt::format(
          "{} ({} on {}, {} GPU KV blocks, max-model-len {}): a {:g} GiB CPU tier takes TTFT p99 "
          "from {:.0f} ms to {:.0f} ms and output throughput {:.2f}x &#8212; simulated",
          html_escape(s.scenario_name), html_escape(s.server.model), html_escape(s.server.hardware),
          format_count(best->gpu_blocks), format_count(best->max_model_len), best->kv_offloading_gib,
          1e3 * base.baseline_ttft_p99_s, 1e3 * best->metrics.ttft_s.p99,
          base.baseline_output_tokens_per_s > 0
              ? best->metrics.output_tokens_per_s / base.baseline_output_tokens_per_s
              : 1.0));
    }
  }
  if (!in.sizings.empty()) {
    const auto recommended = std::count_if(in.sizings.begin(), in.sizings.end(),
                                           [](const Sizing& r) { return r.offload.has_value(); });
    lines.push_back(
        fmt::format("{} model/hardware configurations sized, {} with a recommended --kv-offloading-size "
                    "&#8212; computed",
                    in.sizings.size(), recommended));
  }
  if (lines.empty()) return {};
  std::string out = "<h2 id=\"glance\">At a glance</h2>\n<ul class=\"glance\">\n";
  for (const auto& l : lines) out += "<li>" + l + "</li>\n";
  return out + "</ul>\n";
}

}  // namespace

std::string report_html(const ReportInputs& in, const ReportContext& ctx) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>kvbench report</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>kvbench report</h1>\n";
  out += fmt::format(
      "<p class=\"small\">{} &#183; {} &#183; {}. Every figure says whether it was measured, "
      "simulated or computed.</p>\n",
      html_escape(ctx.tool_version), html_escape(ctx.generated_utc), html_escape(ctx.how));
  out +=
      "<nav><a href=\"#recommendation\">recommendation</a><a href=\"#dma\">transfers</a><a "
      "href=\"#simulate\">simulation</a><a href=\"#size\">sizing</a>"
      "<a href=\"#environment\">environment</a></nav>\n";
  out += recommendation_section_html(in.sizings, in.hardware_basis);
  out += glance(in);
  out += fleet_section_html(in.dma, in.doctors);
  out += dma_section_html(in.dma);
  out += storage_section_html(in.storage);
  out += observe_section_html(in.observations);
  out += simulation_section_html(in.simulations);
  out += trace_section_html(in.traces);
  out += sizing_section_html(in.sizings);
  out += calibration_section_html(in.calibrations);
  out += environment_section_html(in, ctx);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace kvb
