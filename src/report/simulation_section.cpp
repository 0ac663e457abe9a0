// The simulate section: throughput, TTFT p99 and hit rates against the CPU tier size, each with
// the same point run without offloading, and every point in a table.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.hpp"
#include "output/common/expected_error_text.hpp"
#include "output/simulate/sim_document.hpp"
#include "output/simulate/sim_notes_text.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

constexpr const char* kTierAxis = "kv-offloading-size";

// The parameters of a point other than the tier size: one series per distinct combination.
std::string series_name(const SimPointRecord& p) {
  std::string name;
  for (const auto& [k, v] : p.params) {
    if (k == kTierAxis) continue;
    name += (name.empty() ? "" : ", ") + k + "=" + v;
  }
  return name;
}

// A point's CPU tier on the charts' x axis: 0 for a point without one.
double tier_gib(const SimPointRecord& p) { return p.offloading ? p.kv_offloading_gib : 0; }

// Where the GPU blocks came from and what the run approximates: the words simulate's text prints.
std::string notes_html(const SimulateDocument& s) {
  std::string out =
      fmt::format("<p class=\"small\">GPU KV blocks: {}</p>\n", html_escape(gpu_blocks_text(s.gpu_blocks)));
  if (s.notes.empty()) return out;
  out += "<ul class=\"small\">\n";
  for (const auto& n : s.notes) out += "<li>Note: " + html_escape(sim_note_text(n)) + "</li>\n";
  return out + "</ul>\n";
}

struct TierCharts {
  LineChart throughput, ttft, hits;
};

TierCharts tier_charts(const SimulateDocument& s) {
  TierCharts c;
  const auto setup = [](LineChart& chart, const std::string& title, const std::string& y) {
    chart.title = title;
    chart.x_label = "CPU tier size, --kv-offloading-size (GiB)";
    chart.y_label = y;
  };
  setup(c.throughput, "output throughput against CPU tier size", "output tokens/s");
  setup(c.ttft, "TTFT p99 against CPU tier size", "TTFT p99 (ms)");
  setup(c.hits, "prefix-cache hit rate against CPU tier size", "share of prompt tokens (%)");
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SimPointRecord*>> groups;
  for (const auto& p : s.points) {
    const auto n = series_name(p);
    if (!groups.count(n)) order.push_back(n);
    groups[n].push_back(&p);
  }
  for (const auto& n : order) {
    auto pts = groups[n];
    std::sort(pts.begin(), pts.end(),
              [](const auto* a, const auto* b) { return tier_gib(*a) < tier_gib(*b); });
    const std::string label = n.empty() ? "" : " (" + n + ")";
    ChartSeries tput{"with CPU tier" + label, {}, false}, tput_base{"no offloading" + label, {}, true};
    ChartSeries ttft{"with CPU tier" + label, {}, false}, ttft_base{"no offloading" + label, {}, true};
    ChartSeries gpu_hit{"GPU hits" + label, {}, false}, cpu_hit{"CPU-tier hits" + label, {}, true};
    for (const auto* p : pts) {
      const double x = tier_gib(*p);
      const auto& m = p->metrics;
      tput.points.push_back({x, m.output_tokens_per_s, 0, 0});
      tput_base.points.push_back({x, p->vs_no_offload.baseline_output_tokens_per_s, 0, 0});
      ttft.points.push_back({x, 1e3 * m.ttft_s.p99, 0, 0});
      ttft_base.points.push_back({x, 1e3 * p->vs_no_offload.baseline_ttft_p99_s, 0, 0});
      gpu_hit.points.push_back({x, 100 * m.gpu_hit_rate, 0, 0});
      cpu_hit.points.push_back({x, 100 * m.cpu_hit_rate, 0, 0});
    }
    c.throughput.series.push_back(tput);
    c.throughput.series.push_back(tput_base);
    c.ttft.series.push_back(ttft);
    c.ttft.series.push_back(ttft_base);
    c.hits.series.push_back(gpu_hit);
    c.hits.series.push_back(cpu_hit);
  }
  return c;
}

// A fleet: each replica's prefix hits (GPU and CPU tier) at each point, replica on the x axis, so
// a router that leaves one replica cold shows as a dip.
LineChart replica_hits_chart(const SimulateDocument& s) {
  LineChart c;
  c.title =
      fmt::format("prefix-cache hits per replica ({} replicas, {} router)", s.replicas, to_string(s.router));
  c.x_label = "replica";
  c.y_label = "GPU + CPU-tier hits, share of its prompt tokens (%)";
  for (const auto& p : s.points) {
    const auto& replicas = p.metrics.replicas;  // each replica's own figures, in replica order
    if (replicas.empty()) continue;
    std::string name = p.offloading ? fmt::format("CPU tier {:g} GiB", p.kv_offloading_gib) : "no CPU tier";
    if (const auto other = series_name(p); !other.empty()) name += " (" + other + ")";
    ChartSeries series{name, {}, !p.offloading};
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      const double hits = 100 * (replicas[i].gpu_hit_rate + replicas[i].cpu_hit_rate);
      series.points.push_back({static_cast<double>(i), hits, 0, 0});
    }
    c.series.push_back(std::move(series));
  }
  return c;
}

std::string points_table(const SimulateDocument& s) {
  std::string out =
      "<table class=\"data\"><thead><tr><th>point</th><th>CPU tier</th><th>output tok/s</th>"
      "<th>vs no offload</th><th>TTFT p50</th><th>TTFT p99</th><th>p99 without tier</th>"
      "<th>GPU hits</th><th>CPU hits</th><th>preemptions</th><th>D2H</th><th>H2D</th></tr></thead><tbody>\n";
  for (const auto& p : s.points) {
    std::string params;
    for (const auto& [k, v] : p.params) params += (params.empty() ? "" : ", ") + k + "=" + v;
    const auto& m = p.metrics;
    const auto& base = p.vs_no_offload;
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1f}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{:.1f}%</td>"
        "<td class=\"num\">{:.1f}%</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td></tr>\n",
        html_escape(params.empty() ? "(single point)" : params),
        p.offloading ? fmt::format("{:g} GiB", p.kv_offloading_gib) : std::string("off"),
        m.output_tokens_per_s,
        base.baseline_output_tokens_per_s > 0
            ? fmt::format("{:.2f}x", m.output_tokens_per_s / base.baseline_output_tokens_per_s)
            : std::string("-"),
        html_escape(format_seconds(m.ttft_s.p50)), html_escape(format_seconds(m.ttft_s.p99)),
        html_escape(format_seconds(base.baseline_ttft_p99_s)), 100 * m.gpu_hit_rate, 100 * m.cpu_hit_rate,
        format_count(m.preemptions), html_escape(format_bytes_decimal(m.d2h_bytes)),
        html_escape(format_bytes_decimal(m.h2d_bytes)));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string simulation_section_html(const std::vector<SimulateInput>& sims) {
  std::string out =
      "<section id=\"simulate\"><h2>Serving simulation (<code>kvbench simulate</code>, simulated)</h2>\n";
  if (sims.empty()) {
    return out +
           "<p class=\"missing\">No simulate results in this report. Run <code>kvbench simulate --json -o "
           "sim.json</code> and pass the file.</p></section>\n";
  }
  out +=
      "<p>Computed by a discrete-event model of a vLLM-like server (paged KV cache, preemption, prefix "
      "cache, "
      "native CPU offloading); nothing in this section was measured on a GPU. Each point also runs without a "
      "CPU "
      "tier, so the dashed lines show what offloading changes.</p>\n";
  for (const auto& [origin, s] : sims) {
    out += fmt::format("<h3>{}: {} on {} (TP {})</h3>\n", html_escape(s.scenario_name),
                       html_escape(s.server.model), html_escape(s.server.hardware),
                       s.server.tensor_parallel_size);
    if (!s.scenario_description.empty()) out += "<p>" + html_escape(s.scenario_description) + "</p>\n";
    const auto expected = expected_error_text(s.expected_error);
    out += fmt::format(
        "<p class=\"small\">Link model: {}<br>Step-time model: {}<br>Expected error against real vLLM: "
        "{}<br>Source: {}</p>\n",
        html_escape(link_words(s)), html_escape(time_model_words(s)),
        html_escape(expected.empty() ? std::string("not scored for this calibration") : expected),
        html_escape(origin));
    out += notes_html(s);
    const bool tier_swept =
        std::any_of(s.sweep.begin(), s.sweep.end(), [](const SweepAxis& a) { return a.key == kTierAxis; });
    if (tier_swept) {
      const auto c = tier_charts(s);
      out += "<div class=\"charts\">\n" + render_line_chart(c.throughput) + render_line_chart(c.ttft) +
             render_line_chart(c.hits) + "</div>\n";
    } else {
      out +=
          "<p>This run did not sweep <code>kv-offloading-size</code>, so there is no chart against tier "
          "size; "
          "its points follow.</p>\n";
    }
    if (s.replicas > 1) {
      out += fmt::format(
          "<p>A fleet of {} replicas behind a {} router, simulated on one clock; the table's "
          "figures are the fleet's.</p>\n",
          s.replicas, html_escape(to_string(s.router)));
      out += "<div class=\"charts\">\n" + render_line_chart(replica_hits_chart(s)) + "</div>\n";
    }
    out += points_table(s);
  }
  return out + "</section>\n";
}

}  // namespace kvb
