// The dma section: bandwidth against block size per method and direction, with the link ceiling,
// both-ways transfers, and the best method per block size.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/units.hpp"
#include "dma/method_ranking.hpp"
#include "output/dma/dma_output.hpp"
#include "report/html_escape.hpp"
#include "report/report_sections.hpp"
#include "report/svg_chart.hpp"

namespace kvb {

std::string block_size_label(double bytes) { return format_block_size(static_cast<std::uint64_t>(bytes)); }

namespace {

// Records that belong on the same charts: one device, one layout, one kind of host memory.
using GroupKey = std::tuple<std::string, std::string, std::string, int, std::string>;

GroupKey group_of(const DmaRecord& r) {
  return {r.device.backend, r.device.name, to_string(r.tcase.layout), r.tcase.layers,
          to_string(r.tcase.host_mem)};
}

// The lowest device index among the records of r's device model and backend.
int lowest_index(const std::vector<DmaRecord>& records, const DmaRecord& r) {
  int lowest = r.device.index;
  for (const auto& x : records) {
    if (x.device.backend == r.device.backend && x.device.name == r.device.name)
      lowest = std::min(lowest, x.device.index);
  }
  return lowest;
}

// Every dma chart plots against block size on a log-2 axis.
LineChart block_size_chart(std::string title, std::string y_label) {
  LineChart c;
  c.title = std::move(title);
  c.x_label = "block size (log scale)";
  c.y_label = std::move(y_label);
  c.log2_x = true;
  c.x_format = [](double x) { return block_size_label(x); };
  return c;
}

LineChart direction_chart(const std::vector<const DmaRecord*>& group, Direction d, const std::string& title) {
  auto c = block_size_chart(
      title, d == Direction::kBidir ? "GB/s, both directions summed" : "GB/s (10^9 B/s), median");
  std::map<std::string, ChartSeries> by_method;
  std::vector<std::string> order;
  for (const auto* r : group) {
    if (r->tcase.direction != d || r->waived) continue;
    const auto m = method_label(r->tcase);
    if (!by_method.count(m)) {
      order.push_back(m);
      by_method[m].name = m;
    }
    by_method[m].points.push_back(
        {static_cast<double>(r->tcase.block_bytes), r->median_gbps, r->p10_gbps, r->p90_gbps});
  }
  for (const auto& m : order) c.series.push_back(by_method[m]);
  const auto& dev = group.front()->device;
  if (dev.link_ceiling_gbps > 0) {
    const double factor = d == Direction::kBidir ? 2 : 1;
    c.references.push_back(
        {factor * dev.link_ceiling_gbps,
         fmt::format("{} ceiling {:.1f} GB/s ({})", d == Direction::kBidir ? "both-ways" : "link",
                     factor * dev.link_ceiling_gbps, dev.link)});
  }
  return c;
}

// For each block (and layer split) and direction, the fastest method (median GB/s).
std::string best_method_table(const std::vector<const DmaRecord*>& group) {
  std::string out =
      "<table class=\"data\"><thead><tr><th>block</th><th>h2d: best method</th><th>GB/s</th>"
      "<th>d2h: best method</th><th>GB/s</th><th>bidir: best method</th><th>GB/s (h2d + d2h)</th>"
      "</tr></thead><tbody>\n";
  for (const auto& [block, dirs] : rank_methods(group)) {
    std::string label = block_size_label(static_cast<double>(block.block_bytes));
    if (block.layers > 1) label += fmt::format(" /{}L", block.layers);
    out += fmt::format("<tr><td>{}</td>", label);
    for (const auto d : {Direction::kH2D, Direction::kD2H, Direction::kBidir}) {
      const auto it = dirs.find(d);
      if (it == dirs.end()) {
        out += "<td></td><td></td>";
        continue;
      }
      const auto* r = it->second.front();
      std::string value = fmt::format("{:.2f}", r->median_gbps);
      if (d == Direction::kBidir) value += fmt::format(" ({:.1f} + {:.1f})", r->h2d_gbps, r->d2h_gbps);
      if (r->link_utilization > 0) value += fmt::format(", {:.0f}% of link", 100 * r->link_utilization);
      out += fmt::format("<td>{}</td><td class=\"num\">{}</td>", method_label(r->tcase), value);
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

// How much a compute-bound load slows while each method copies (vLLM's blog: copy kernels take
// SMs from the model, DMA does not). Drawn only from cases measured with --with-compute.
std::string compute_slowdown_html(const std::vector<DmaRecord>& records) {
  std::string out = "<h3>Compute slowdown under copies</h3>\n";
  auto c = block_size_chart("compute load: rate alone / rate during copies", "slowdown (1 = unaffected)");
  std::map<std::string, std::size_t> index;
  std::string load;
  for (const auto& r : records) {
    if (r.waived || !r.tcase.with_compute || r.compute_slowdown <= 0) continue;
    const auto name = method_label(r.tcase) + " " + to_string(r.tcase.direction);
    if (!index.count(name)) {
      index[name] = c.series.size();
      c.series.push_back({name, {}, false});
    }
    c.series[index[name]].points.push_back(
        {static_cast<double>(r.tcase.block_bytes), r.compute_slowdown, 0, 0});
    load = r.compute_load;
  }
  if (c.series.empty()) {
    return out +
           "<p class=\"missing\">Not measured: none of these results ran with <code>kvbench dma "
           "--with-compute</code>, which runs a compute-bound load beside the copies. Nothing is drawn "
           "rather "
           "than a guess.</p>\n";
  }
  c.references.push_back({1.0, "1.0 = the load runs as fast as alone"});
  out += fmt::format(
      "<p>Measured: the load ({}) runs alone, then throughout the timed copies; the ratio of its "
      "rates is its slowdown.</p>\n",
      html_escape(load));
  return out + "<div class=\"charts\">" + render_line_chart(c) + "</div>\n";
}

// Side by side: the same device measured by more than one tool (kvbench's own backend and the
// PyTorch peer, scripts/torch_dma_peer.py), one chart per direction, pinned contiguous cases only.
std::string peer_comparison_html(const std::vector<DmaRecord>& records) {
  std::map<std::string, std::set<std::string>> backends_of;
  for (const auto& r : records) {
    if (!r.waived && !r.tcase.with_compute) backends_of[r.device.name].insert(r.device.backend);
  }
  std::string out;
  for (const auto& [device, backends] : backends_of) {
    if (backends.size() < 2) continue;
    out +=
        fmt::format("<h3>{}: kvbench beside its peers</h3>\n<div class=\"charts\">\n", html_escape(device));
    for (const Direction d : {Direction::kH2D, Direction::kD2H}) {
      auto c =
          block_size_chart(fmt::format("{} by tool and method", to_string(d)), "GB/s (10^9 B/s), median");
      std::map<std::string, std::size_t> index;
      for (const auto& r : records) {
        if (r.device.name != device || r.waived || r.tcase.with_compute || r.tcase.direction != d ||
            r.tcase.layout != Layout::kContiguous || r.tcase.host_mem != HostMemKind::kPinned) {
          continue;
        }
        const auto name = r.device.backend + " " + to_string(r.tcase.method);
        if (!index.count(name)) {
          index[name] = c.series.size();
          c.series.push_back({name, {}, r.device.backend != *backends.begin()});
        }
        c.series[index[name]].points.push_back(
            {static_cast<double>(r.tcase.block_bytes), r.median_gbps, r.p10_gbps, r.p90_gbps});
      }
      out += render_line_chart(c);
    }
    out += "</div>\n";
  }
  return out;
}

// --device all: each device's copies while every device copied, one series per device (method
// ce, vLLM's, where measured), and the node's sum. Only for results that hold several devices.
std::string per_device_html(const std::vector<DmaRecord>& records) {
  std::map<std::pair<std::string, std::string>, std::set<int>> devices_of;
  for (const auto& r : records) {
    if (!r.waived && !r.tcase.with_compute)
      devices_of[{r.device.backend, r.device.name}].insert(r.device.index);
  }
  std::string out;
  for (const auto& [dev, indices] : devices_of) {
    if (indices.size() < 2) continue;
    // Named copies, not structured bindings: clang before 16 cannot capture those in a lambda.
    const std::string& backend = dev.first;
    const std::string& name = dev.second;
    const auto in_device = [&](const DmaRecord& r) {
      return r.device.backend == backend && r.device.name == name && !r.waived && !r.tcase.with_compute &&
             r.tcase.layout == Layout::kContiguous && r.tcase.host_mem == HostMemKind::kPinned;
    };
    bool have_ce = false;
    for (const auto& r : records) have_ce = have_ce || (in_device(r) && r.tcase.method == Method::kCe);
    out += fmt::format(
        "<h3>{}: {} devices copying at once (<code>--device all</code>)</h3>\n<p>Each device's median "
        "while every device copied (method {}); a shared PCIe switch, root port or NUMA node shows as "
        "devices below the others. The node's sum is drawn dashed.</p>\n<div class=\"charts\">\n",
        html_escape(name), indices.size(), have_ce ? "ce, as vLLM copies" : "as measured");
    const auto aggregates = aggregate_devices(records);
    for (const Direction d : {Direction::kH2D, Direction::kD2H, Direction::kBidir}) {
      auto c = block_size_chart(fmt::format("{} per device", to_string(d)), "GB/s (10^9 B/s), median");
      std::map<int, std::size_t> index;
      ChartSeries sum{"all devices (sum)", {}, true};
      for (const auto& r : records) {
        if (!in_device(r) || r.tcase.direction != d || (have_ce && r.tcase.method != Method::kCe)) continue;
        if (!index.count(r.device.index)) {
          index[r.device.index] = c.series.size();
          c.series.push_back({fmt::format("device {}", r.device.index), {}, false});
        }
        c.series[index[r.device.index]].points.push_back(
            {static_cast<double>(r.tcase.block_bytes), r.median_gbps, r.p10_gbps, r.p90_gbps});
        const auto a = std::find_if(aggregates.begin(), aggregates.end(),
                                    [&](const DmaAggregate& x) { return x.id == r.id; });
        if (a != aggregates.end() && r.device.index == a->devices.front()) {
          sum.points.push_back(
              {static_cast<double>(r.tcase.block_bytes), a->median_gbps, a->median_gbps, a->median_gbps});
        }
      }
      if (c.series.empty()) continue;
      if (!sum.points.empty()) c.series.push_back(sum);
      out += render_line_chart(c);
    }
    out += "</div>\n";
  }
  return out;
}

}  // namespace

namespace {

// One group's heading, link line, charts per direction and best-method table.
std::string group_html(const GroupKey& key, const std::vector<const DmaRecord*>& group) {
  std::string out;
  const auto& first = *group.front();
  const auto& [backend, device, layout, layers, host_mem] = key;
  std::string layout_text =
      layout == "per-layer" ? fmt::format("per-layer ({} fragments per block)", layers) : layout;
  out += fmt::format("<h3>{} &#8212; {} backend, {} layout, {} host memory</h3>\n", html_escape(device),
                     html_escape(backend), html_escape(layout_text), html_escape(host_mem));
  out += fmt::format(
      "<p>Link: {}{}. Timing: {}. {} blocks per transfer at the smallest size.</p>\n",
      html_escape(first.device.link.empty() ? "unknown" : first.device.link),
      first.device.link_ceiling_gbps > 0
          ? fmt::format(", theoretical ceiling {:.1f} GB/s per direction", first.device.link_ceiling_gbps)
          : std::string(", ceiling unknown"),
      html_escape(first.device.timing.empty() ? "not recorded" : first.device.timing), first.tcase.blocks);
  if (backend == "host") {
    out +=
        "<p class=\"warn\">Host backend: copies between two host-memory pools with memcpy and threads. No "
        "GPU "
        "link was measured; these figures show the tool working, not this node's PCIe or NVLink.</p>\n";
  }
  std::set<Direction> present;
  for (const auto* r : group) present.insert(r->tcase.direction);
  out += "<div class=\"charts\">\n";
  if (present.count(Direction::kH2D)) {
    out += render_line_chart(direction_chart(group, Direction::kH2D, "host to device (h2d)"));
  }
  if (present.count(Direction::kD2H)) {
    out += render_line_chart(direction_chart(group, Direction::kD2H, "device to host (d2h)"));
  }
  if (present.count(Direction::kBidir)) {
    out += render_line_chart(
        direction_chart(group, Direction::kBidir,
                        "both ways at once (bidir: both directions' bytes over the union of their spans)"));
  }
  out += "</div>\n";
  out += best_method_table(group);
  return out;
}

// Waived cases, one line per method and reason: the reason is usually the same for every size.
std::string waived_html(const std::vector<const DmaRecord*>& group) {
  std::map<std::string, int> waived;
  for (const auto* r : group) {
    if (r->waived) ++waived[to_string(r->tcase.method) + ": " + r->waive_reason];
  }
  if (waived.empty()) return {};
  std::string out = "<p>Waived (not measured):</p><ul>";
  for (const auto& [why, n] : waived) out += fmt::format("<li>{} ({} cases)</li>", html_escape(why), n);
  return out + "</ul>\n";
}

}  // namespace

std::string dma_section_html(const std::vector<DmaRecord>& records) {
  std::string out =
      "<section id=\"dma\"><h2>GPU&#8596;CPU transfers (<code>kvbench dma</code>, measured)</h2>\n";
  if (records.empty()) {
    return out +
           "<p class=\"missing\">No dma results in this report. Run <code>kvbench dma --json -o "
           "dma.json</code> "
           "and pass the file.</p></section>\n";
  }
  out +=
      "<p>Each point is the median of timed transfers of many scattered KV blocks (device events on a GPU); "
      "whiskers span p10&#8211;p90. GB/s are decimal (10<sup>9</sup> B/s).</p>\n";
  std::map<GroupKey, std::vector<const DmaRecord*>> groups;
  std::vector<GroupKey> order;
  for (const auto& r : records) {
    if (r.tcase.with_compute) continue;  // copies under a compute load: their own chart below
    // Several devices at once: the first device's charts here, every device in its own section.
    if (r.device.index != lowest_index(records, r)) continue;
    const auto k = group_of(r);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  for (const auto& key : order) out += group_html(key, groups[key]) + waived_html(groups[key]);
  out += per_device_html(records);
  out += peer_comparison_html(records);
  out += compute_slowdown_html(records);
  return out + "</section>\n";
}

}  // namespace kvb
