// The storage section: `kvbench storage` results, the write and read throughput of each case and
// how the page cache was kept out (measured). Absent when no storage result was given.
#include <fmt/format.h>

#include <map>

#include "core/units.hpp"
#include "output/storage/storage_output.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {
namespace {

std::string storage_table(const StorageDocument& d) {
  std::string out =
      "<table class=\"data\"><thead><tr><th>layout</th><th>mode</th><th>engine</th><th>chunk</th>"
      "<th>threads</th><th>qd</th><th>write GB/s</th><th>read "
      "GB/s</th><th>verified</th></tr></thead><tbody>\n";
  for (const auto& r : d.records) {
    const auto& c = r.tcase;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                       to_string(c.layout), to_string(c.mode), to_string(c.engine),
                       format_block_size(c.chunk_bytes), c.threads, c.queue_depth);
    if (r.waived) {
      out += fmt::format("<td colspan=\"3\">skipped: {}</td></tr>\n", html_escape(r.waive_reason));
      continue;
    }
    out += fmt::format("<td>{:.2f}</td><td>{:.2f}</td><td>{}</td></tr>\n", r.write.median_gbps,
                       r.read.median_gbps, r.verified ? "yes" : "<strong>NO</strong>");
  }
  return out + "</tbody></table>\n";
}

// Read GB/s against chunk size, one line per layout, mode, engine, threads and depth.
std::string read_chart(const StorageDocument& d) {
  std::map<std::string, ChartSeries> lines;
  for (const auto& r : d.records) {
    if (r.waived || !r.verified) continue;
    const auto& c = r.tcase;
    const auto name = fmt::format("{} {} {} t{} qd{}", to_string(c.layout), to_string(c.mode),
                                  to_string(c.engine), c.threads, c.queue_depth);
    auto& s = lines[name];
    s.name = name;
    s.dashed = c.mode == IoMode::kBuffered;
    s.points.push_back({.x = static_cast<double>(c.chunk_bytes),
                        .y = r.read.median_gbps,
                        .low = r.read.p10_gbps,
                        .high = r.read.p90_gbps});
  }
  if (lines.empty()) return "";
  LineChart chart;
  chart.title = "read throughput by chunk size (measured)";
  chart.x_label = "chunk size (log scale)";
  chart.y_label = "GB/s (median pass; p10-p90)";
  chart.log2_x = true;
  chart.x_format = [](double b) { return block_size_label(b); };
  for (auto& [name, s] : lines) chart.series.push_back(std::move(s));
  return "<div class=\"charts\">" + render_line_chart(chart) + "</div>\n";
}

}  // namespace

std::string storage_section_html(const std::vector<StorageDocument>& docs) {
  if (docs.empty()) return {};
  std::string out =
      "<section id=\"storage\"><h2>Storage tier (<code>kvbench storage</code>, measured)</h2>\n";
  out += fmt::format(
      "<p>KV chunks written from host memory to files and read back, every chunk checked. "
      "Page cache, buffered: {}. {}.</p>\n",
      html_escape(cache_bypass_text(CacheBypass::kFadviseDontneed)), html_escape(gpudirect_text()));
  for (const auto& d : docs) {
    out += fmt::format("<h3>{} ({}, {} passes per case)</h3>\n", html_escape(d.dir.path),
                       html_escape(d.dir.fs_type), d.repeats);
    if (!d.dir.direct_supported)
      out += fmt::format("<p>O_DIRECT: {}</p>\n", html_escape(d.dir.direct_refusal));
    out += storage_table(d) + read_chart(d);
  }
  return out + "</section>\n";
}

}  // namespace kvb
