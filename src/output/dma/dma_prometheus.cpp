#include "output/dma/dma_prometheus.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kvb {

std::string prometheus_label_value(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

namespace {

struct Metric {
  const char* name;
  const char* help;
  double (*value)(const DmaRecord&);
  bool compute_only = false;  // exists only for --with-compute cases
};

// One series per measured case; waived cases have no value and are left out.
const Metric kMetrics[] = {
    {"kvbench_dma_median_gbps",
     "Median bandwidth of a KV-block transfer, GB/s (10^9 B/s); bidir is both directions.",
     [](const DmaRecord& r) { return r.median_gbps; }},
    {"kvbench_dma_p10_gbps", "10th percentile bandwidth (slow tail), GB/s.",
     [](const DmaRecord& r) { return r.p10_gbps; }},
    {"kvbench_dma_wall_gbps", "Median bandwidth over host wall time including submission, GB/s.",
     [](const DmaRecord& r) { return r.wall_gbps; }},
    {"kvbench_dma_link_utilization_ratio",
     "Median per-direction bandwidth over the link's theoretical ceiling.",
     [](const DmaRecord& r) { return r.link_utilization; }},
    {"kvbench_dma_verified", "1 when the copied data matched, 0 when it did not.",
     [](const DmaRecord& r) { return r.verified ? 1.0 : 0.0; }},
    {"kvbench_dma_compute_slowdown_ratio",
     "A compute load's rate alone over its rate during the copies (--with-compute cases only).",
     [](const DmaRecord& r) { return r.compute_slowdown; }, true},
};

std::string case_labels(const DmaRecord& r) {
  const auto& c = r.tcase;
  return fmt::format(
      "backend=\"{}\",device=\"{}\",method=\"{}\",ctas=\"{}\",direction=\"{}\",layout=\"{}\",block_bytes=\"{}"
      "\","
      "blocks=\"{}\",host_mem=\"{}\",with_compute=\"{}\"",
      prometheus_label_value(r.device.backend), prometheus_label_value(r.device.name), to_string(c.method),
      c.ctas, to_string(c.direction), to_string(c.layout), c.block_bytes, c.blocks, to_string(c.host_mem),
      c.with_compute ? 1 : 0);
}

// A device of a node: its index and PCIe address tell an alert which GPU's link fell behind.
std::string labels(const DmaRecord& r) {
  return fmt::format("{},device_index=\"{}\",pci_bus_id=\"{}\"", case_labels(r), r.device.index,
                     prometheus_label_value(r.device.pci_bus_id));
}

}  // namespace

std::string dma_prometheus(const std::vector<DmaRecord>& records) {
  std::string out;
  for (const auto& m : kMetrics) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", m.name, m.help, m.name);
    for (const auto& r : records) {
      if (r.waived || (m.compute_only && !r.tcase.with_compute)) continue;
      out += fmt::format("{}{{{}}} {:.6g}\n", m.name, labels(r), m.value(r));
    }
  }
  // --device all: the node's aggregate per case (every device copying at once).
  const auto aggregates = aggregate_devices(records);
  if (!aggregates.empty()) {
    out +=
        "# HELP kvbench_dma_all_devices_median_gbps Sum of every device's median GB/s, all devices copying "
        "at "
        "once (--device all).\n# TYPE kvbench_dma_all_devices_median_gbps gauge\n";
    for (const auto& a : aggregates) {
      const auto& r =
          *std::find_if(records.begin(), records.end(), [&](const DmaRecord& x) { return x.id == a.id; });
      out += fmt::format("kvbench_dma_all_devices_median_gbps{{{},devices=\"{}\"}} {:.6g}\n", case_labels(r),
                         a.devices.size(), a.median_gbps);
    }
  }
  // The ceiling is per device, not per case: one series per distinct device.
  out +=
      "# HELP kvbench_dma_link_ceiling_gbps Theoretical per-direction ceiling of the host link, GB/s (absent "
      "when unknown).\n"
      "# TYPE kvbench_dma_link_ceiling_gbps gauge\n";
  std::vector<std::string> seen;
  for (const auto& r : records) {
    const auto key = r.device.backend + "\n" + r.device.name + "\n" + std::to_string(r.device.index);
    // An unknown ceiling (0) is left out: a 0 GB/s series would read as a dead link.
    if (r.device.link_ceiling_gbps <= 0 || std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    out += fmt::format(
        "kvbench_dma_link_ceiling_gbps{{backend=\"{}\",device=\"{}\",device_index=\"{}\",link=\"{}\"}} "
        "{:.6g}\n",
        prometheus_label_value(r.device.backend), prometheus_label_value(r.device.name), r.device.index,
        prometheus_label_value(r.device.link), r.device.link_ceiling_gbps);
  }
  return out;
}

}  // namespace kvb
