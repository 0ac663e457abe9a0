// The section on the tier in service: `kvbench observe` results, each window's readings and whether
// the tier paid over it (measured). Absent when no observe result was given.
#include <fmt/format.h>

#include "output/observe/observe_words.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {
namespace {

std::string window_heading(const ObserveDocument& d) {
  const auto& s = d.sources;
  const auto where = s.after == s.before ? fmt::format("{} scrapes of {}", s.scrapes, s.before)
                                         : fmt::format("{} -> {}", s.before, s.after);
  return fmt::format("<h3>{} over {:.1f} s ({})</h3>\n", engine_name(d.result.engine), d.result.seconds,
                     html_escape(where));
}

std::string readings_table(const ObserveResult& r) {
  std::string out =
      "<table class=\"data\"><thead><tr><th>figure</th><th>reading</th><th>metric</th></tr></thead><tbody>\n";
  for (const auto& reading : r.readings) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
                       figure_words(reading.figure).label, html_escape(reading_text(r, reading)),
                       html_escape(reading.metric));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string observe_section_html(const std::vector<ObserveDocument>& docs) {
  if (docs.empty()) return {};
  std::string out =
      "<section id=\"observe\"><h2>The tier in service (<code>kvbench observe</code>, measured)</h2>\n"
      "<p>Two scrapes of the server's own metrics: what its KV tier did between them.</p>\n";
  for (const auto& d : docs) {
    out += window_heading(d);
    if (d.sources.interrupted) out += "<p>Interrupted: the window ends at the last scrape finished.</p>\n";
    out += fmt::format("<p><strong>Verdict:</strong> {}</p>\n", html_escape(verdict_text(d.result)));
    out += readings_table(d.result);
  }
  return out + "</section>\n";
}

}  // namespace kvb
