// The fleet section: with dma results from more than one node, one row per node and GPU, the
// fleet's median per case, and each node marked an outlier when a case falls outside a robust band
// around the fleet median (median +- 3 x 1.4826 x MAD, at least +-2% of the median) or when its
// kvbench doctor failed a check.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/percentile.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"

namespace kvb {
namespace {

constexpr double kMadK = 3.0;           // band half-width in robust standard deviations
constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution -> its standard deviation
constexpr double kMinBand = 0.02;       // identical nodes (MAD 0) still get +-2% of the median

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 0.5);
}

struct Band {
  double median = 0, mad = 0, half_width = 0;
  std::size_t nodes = 0;
};

std::string case_label(const DmaRecord& r) {
  return fmt::format("{} {} {}", to_string(r.tcase.direction), to_string(r.tcase.method),
                     block_size_label(static_cast<double>(r.tcase.block_bytes)));
}

}  // namespace

std::vector<FleetNodeRow> fleet_rows(const std::vector<DmaRecord>& dma,
                                     const std::vector<DoctorView>& doctors) {
  // node key: host + GPU; case key: the record id (every case parameter).
  std::map<std::string, std::map<std::string, const DmaRecord*>> by_node;
  for (const auto& r : dma) {
    if (r.waived || !r.verified || r.hostname.empty()) continue;
    by_node[r.hostname + "\n" + r.device.name + "\n" + r.device.pci_bus_id][r.id] = &r;
  }
  std::set<std::string> hosts;
  for (const auto& [key, cases] : by_node) hosts.insert(key.substr(0, key.find('\n')));
  if (hosts.size() < 2) return {};
  std::map<std::string, Band> bands;
  std::map<std::string, std::vector<double>> values;
  for (const auto& [key, cases] : by_node) {
    for (const auto& [id, r] : cases) values[id].push_back(r->median_gbps);
  }
  for (const auto& [id, v] : values) {
    Band b;
    b.nodes = v.size();
    b.median = median_of(v);
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::fabs(x - b.median));
    b.mad = median_of(dev);
    b.half_width = std::max(kMadK * kMadToSigma * b.mad, kMinBand * b.median);
    bands[id] = b;
  }
  std::vector<FleetNodeRow> rows;
  for (const auto& [key, cases] : by_node) {
    FleetNodeRow row;
    const auto first = cases.begin()->second;
    row.hostname = first->hostname;
    row.device = first->device.name;
    row.pci_bus_id = first->device.pci_bus_id;
    row.cases = cases.size();
    double worst = -1;
    for (const auto& [id, r] : cases) {
      const auto& b = bands[id];
      if (b.nodes < 2) continue;
      const double off = std::fabs(r->median_gbps - b.median) / b.half_width;  // 1 = at the band's edge
      if (off > worst) {
        worst = off;
        row.worst_case = fmt::format("{}: {:.1f} GB/s vs fleet median {:.1f} (band +-{:.1f})", case_label(*r),
                                     r->median_gbps, b.median, b.half_width);
      }
      if (off > 1) row.outside_band.push_back(case_label(*r));
    }
    for (const auto& d : doctors) {
      if (d.hostname == row.hostname)
        row.failed_checks.insert(row.failed_checks.end(), d.failed.begin(), d.failed.end());
    }
    row.outlier = !row.outside_band.empty() || !row.failed_checks.empty();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string fleet_section_html(const std::vector<DmaRecord>& dma, const std::vector<DoctorView>& doctors) {
  const auto rows = fleet_rows(dma, doctors);
  if (rows.empty()) return {};
  std::string out = "<section id=\"fleet\"><h2>Fleet (<code>kvbench dma</code> per node, measured)</h2>\n";
  out += fmt::format(
      "<p>{} node/GPU pairs. A node is an <strong>outlier</strong> when any case falls outside the "
      "fleet's robust band for it (median &#177; {:g} &#215; {:.4g} &#215; MAD, at least &#177;{:g}% of "
      "the median) or its <code>kvbench doctor</code> failed a check.</p>\n",
      rows.size(), kMadK, kMadToSigma, kMinBand * 100);
  out +=
      "<table class=\"data\"><thead><tr><th>node</th><th>GPU</th><th>PCI</th><th>cases</th><th>farthest from "
      "the "
      "fleet</th><th>doctor failures</th><th>verdict</th></tr></thead><tbody>\n";
  for (const auto& r : rows) {
    std::string failures;
    for (const auto& f : r.failed_checks) failures += (failures.empty() ? "" : ", ") + html_escape(f);
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        html_escape(r.hostname), html_escape(r.device), html_escape(r.pci_bus_id), r.cases,
        html_escape(r.worst_case), failures.empty() ? "-" : failures,
        r.outlier ? "<strong>outlier</strong>" : "ok");
  }
  return out + "</tbody></table></section>\n";
}

}  // namespace kvb
