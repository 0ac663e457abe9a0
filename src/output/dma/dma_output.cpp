#include "output/dma/dma_output.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "output/common/text_table.hpp"

namespace kvb {
namespace {

std::string gb(double v) { return fmt::format("{:.2f}", v); }

// The h2d+d2h cell of a bidir row, marked "!" when the pair's figure (bytes over the union of the
// spans) is below either direction's own: the directions did not run together.
std::string bidir_cell(const DmaRecord& r, bool& serialized) {
  const bool apart = r.median_gbps < std::max(r.h2d_gbps, r.d2h_gbps);
  serialized = serialized || apart;
  return fmt::format("{:.1f}+{:.1f}{}", r.h2d_gbps, r.d2h_gbps, apart ? " !" : "");
}

bool several_devices(const std::vector<DmaRecord>& records) {
  return std::any_of(records.begin(), records.end(),
                     [&](const DmaRecord& r) { return r.device.index != records.front().device.index; });
}

}  // namespace

std::string dma_table(const std::vector<DmaRecord>& records) {
  // The compute column only when a case ran with --with-compute; the device column only when
  // several devices ran at once.
  const bool compute =
      std::any_of(records.begin(), records.end(), [](const DmaRecord& r) { return r.tcase.with_compute; });
  const bool devices = !records.empty() && several_devices(records);
  std::vector<std::string> header = {"method", "dir",     "block",   "blocks",    "median GB/s",
                                     "+-",     "p10",     "p90",     "wall GB/s", "h2d+d2h",
                                     "link %", "samples", "verified"};
  if (devices) header.insert(header.begin(), "dev");
  if (compute) header.push_back("compute slowdown");
  TextTable t(header);
  bool serialized = false;  // a bidir pair whose directions barely overlapped
  for (const auto& r : records) {
    const auto& c = r.tcase;
    std::string block = format_block_size(c.block_bytes);
    if (c.layout == Layout::kPerLayer) block += fmt::format(" /{}L", c.layers);
    std::vector<std::string> row = {method_label(c), to_string(c.direction), block, std::to_string(c.blocks)};
    if (devices) row.insert(row.begin(), std::to_string(r.device.index));
    if (r.waived) {
      row.push_back("waived: " + r.waive_reason);
      t.add_spanning_row(row);
      continue;
    }
    for (auto&& cell : std::vector<std::string>{
             gb(r.median_gbps), r.precision > 0 ? fmt::format("{:.1f}%", r.precision * 100) : "",
             gb(r.p10_gbps), gb(r.p90_gbps), gb(r.wall_gbps),
             c.direction == Direction::kBidir ? bidir_cell(r, serialized) : "",
             r.link_utilization > 0 ? fmt::format("{:.0f}", r.link_utilization * 100) : "",
             fmt::format("{}{}", r.time.count, r.converged ? "" : "*"), r.verified ? "yes" : "NO"}) {
      row.push_back(std::move(cell));
    }
    if (compute) row.push_back(r.compute_slowdown > 0 ? fmt::format("{:.2f}x", r.compute_slowdown) : "");
    t.add_row(row);
  }
  std::string out = t.render();
  if (serialized) {
    out +=
        "! both directions at once moved less than one of them alone: their spans barely overlapped (the "
        "host or "
        "the runtime ran them one after the other), so the union of the spans is longer than either\n";
  }
  if (devices) {
    TextTable all({"all devices", "dir", "block", "sum of medians GB/s", "h2d+d2h", "devices"});
    for (const auto& a : aggregate_devices(records)) {
      const auto& r =
          *std::find_if(records.begin(), records.end(), [&](const DmaRecord& x) { return x.id == a.id; });
      const auto& c = r.tcase;
      all.add_row(
          {method_label(c), to_string(c.direction), format_block_size(c.block_bytes), gb(a.median_gbps),
           c.direction == Direction::kBidir ? fmt::format("{:.1f}+{:.1f}", a.h2d_gbps, a.d2h_gbps) : "",
           std::to_string(a.devices.size())});
    }
    out += "\nAll devices at once (each device's median while every device copied, summed):\n" + all.render();
  }
  return out;
}

std::string dma_header(const DeviceInfo& d, const std::vector<DmaRecord>& records, std::size_t devices) {
  std::string out = fmt::format("kvbench dma: {} backend, {}{} (driver {}, runtime {})\n", d.backend, d.name,
                                devices > 1 ? fmt::format(" x {} devices at once", devices) : "",
                                d.driver_version, d.runtime_version.empty() ? "n/a" : d.runtime_version);
  out += fmt::format("link: {}; timing: {}; host CPU: {}\n", d.link, d.timing,
                     records.empty() ? "" : records.front().host_cpu);
  for (const auto& e : d.environment) out += fmt::format("environment: {}\n", e);
  out +=
      "Measured. GB/s = 10^9 B/s over the median sample; +- = the median's 95% confidence half-width; bidir "
      "= "
      "both directions' bytes over the union of their spans, first start to last end (h2d+d2h: each over its "
      "own span); * = precision not met before the time cap.\n";
  return out;
}

std::string dma_cost_summary(const std::vector<DmaRecord>& records, double elapsed_s) {
  double timed = 0, loop = 0, overhead = 0, pools = 0;
  std::size_t measured = 0;
  for (const auto& r : records) {
    pools += r.pool_setup_s;
    overhead += r.overhead_s();
    if (r.waived) continue;
    ++measured;
    timed += r.timed_s;
    loop += r.loop_s;
  }
  return fmt::format(
      "{} case{} ({} measured) in {:.1f} s: timed runs {:.1f} s, warm-ups and held runs {:.1f} s, set-up + "
      "verification + bookkeeping {:.1f} s ({:.1f}% of timed work), pools built {:.1f} s",
      records.size(), records.size() == 1 ? "" : "s", measured, elapsed_s, timed, std::max(0.0, loop - timed),
      overhead, timed > 0 ? 100.0 * overhead / timed : 0.0, pools);
}

std::string dma_csv(const std::vector<DmaRecord>& records) {
  std::string out =
      "backend,device,method,direction,layout,layers,block_bytes,blocks,host_mem,samples,median_gbps,p10_"
      "gbps,"
      "p90_gbps,wall_gbps,h2d_gbps,d2h_gbps,link_ceiling_gbps,verified,waived\n";
  for (const auto& r : records) {
    const auto& c = r.tcase;
    std::string device = r.device.name;
    for (auto& ch : device) {
      if (ch == ',' || ch == '"') ch = ' ';
    }
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.2f},{},{}\n",
        r.device.backend, device, to_string(c.method), to_string(c.direction), to_string(c.layout), c.layers,
        c.block_bytes, c.blocks, to_string(c.host_mem), r.time.count, r.median_gbps, r.p10_gbps, r.p90_gbps,
        r.wall_gbps, r.h2d_gbps, r.d2h_gbps, r.device.link_ceiling_gbps, r.verified, r.waived);
  }
  return out;
}

std::string blocks_reduced_text(const BlocksReduced& r) {
  const auto block = format_bytes_binary(static_cast<double>(r.block_bytes));
  const auto pool = format_bytes_binary(static_cast<double>(r.pool_bytes));
  if (r.quarter)
    return fmt::format("{} blocks: {} per transfer (a quarter of the {} pool; --blocks or --pool to change)",
                       block, r.blocks, pool);
  return fmt::format("{} blocks: {} per transfer (the {} pool holds no more)", block, r.blocks, pool);
}

}  // namespace kvb
