// The environment section: what the dma figures were measured on, and where every input came from.
#include <fmt/format.h>

#include <set>

#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {

std::string environment_section_html(const ReportInputs& in, const ReportContext& ctx) {
  std::string out = "<section id=\"environment\"><h2>Environment</h2>\n<table class=\"kv\"><tbody>\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", html_escape(k), html_escape(v));
  };
  std::set<std::string> seen;
  for (const auto& r : in.dma) {
    const auto& d = r.device;
    const auto key = d.backend + "\n" + d.name + "\n" + r.host_cpu;
    if (!seen.insert(key).second) continue;
    row("device", fmt::format("{} ({} backend)", d.name, d.backend));
    row("driver / runtime", fmt::format("{} / {}", d.driver_version.empty() ? "-" : d.driver_version,
                                        d.runtime_version.empty() ? "-" : d.runtime_version));
    row("host link", d.link_ceiling_gbps > 0
                         ? fmt::format("{} (ceiling {:.1f} GB/s per direction)", d.link, d.link_ceiling_gbps)
                         : (d.link.empty() ? std::string("unknown") : d.link));
    row("timing", d.timing.empty() ? "not recorded" : d.timing);
    row("host CPU", r.host_cpu.empty() ? "unknown" : r.host_cpu);
    const std::string asked = r.tcase.numa_node >= 0 ? fmt::format("node {} asked", r.tcase.numa_node)
                                                     : std::string("no node asked");
    row("NUMA placement of host pools",
        r.host_numa_node >= 0 ? fmt::format("{}; pages on node {} (read back)", asked, r.host_numa_node)
                              : asked + "; placement not known");
  }
  if (in.dma.empty()) row("device", "no dma results: no device was measured for this report");
  row("report host", ctx.host);
  row("generated", ctx.generated_utc);
  row("tool", ctx.tool_version);
  row("how", ctx.how);
  out += "</tbody></table>\n<h3>Inputs</h3>\n<ul>\n";
  for (const auto& s : in.sources) out += "<li>" + html_escape(s) + "</li>\n";
  out += "</ul>\n";
  if (!in.notes.empty()) {
    out += "<h3>Notes</h3>\n<ul>\n";
    for (const auto& n : in.notes) out += "<li>" + html_escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace kvb
