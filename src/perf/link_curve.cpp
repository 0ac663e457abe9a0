#include "perf/link_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "dma/dma_json.hpp"

namespace kvb {

double LinkCurve::gbps_at(double block_bytes) const {
  if (measured.empty()) return block_bytes / (per_copy_s + block_bytes / (gbps * 1e9)) / 1e9;
  if (block_bytes <= measured.front().first) return measured.front().second;
  if (block_bytes >= measured.back().first) return measured.back().second;
  const auto hi = std::upper_bound(measured.begin(), measured.end(), block_bytes,
                                   [](double b, const auto& p) { return b < p.first; });
  const auto lo = hi - 1;
  const double f = std::log(block_bytes / lo->first) / std::log(hi->first / lo->first);
  return std::exp(std::log(lo->second) + f * (std::log(hi->second) - std::log(lo->second)));
}

double LinkCurve::seconds(std::int64_t blocks, double block_bytes) const {
  if (blocks <= 0) return 0;
  const double n = static_cast<double>(blocks);
  if (measured.empty()) return n * (per_copy_s + block_bytes / (gbps * 1e9));
  return n * block_bytes / (gbps_at(block_bytes) * 1e9);
}

LinkProfile link_profile_from_hardware(const HardwareSpec& hw) {
  LinkProfile p;
  if (const auto& m = hw.measured_link; !m.source.empty()) {
    p.h2d.gbps = m.h2d_gbps;
    p.h2d.per_copy_s = m.h2d_per_copy_us * 1e-6;
    p.d2h.gbps = m.d2h_gbps;
    p.d2h.per_copy_s = m.d2h_per_copy_us * 1e-6;
    p.source = fmt::format("hardware table ({}), measured: h2d {:.1f} GB/s + {:.2f} us per block copy, d2h {:.1f} GB/s "
                           "+ {:.2f} us ({})",
                           hw.name, m.h2d_gbps, m.h2d_per_copy_us, m.d2h_gbps, m.d2h_per_copy_us,
                           m.source.substr(0, m.source.find(" (")));
    return p;
  }
  LinkCurve c;
  c.gbps = hw.link_practical_gbps;
  c.per_copy_s = kDefaultPerCopySeconds;
  p.h2d = c;
  p.d2h = c;
  p.source = fmt::format("hardware table ({}): {:.1f} GB/s per direction, {:.1f} us per block copy (datasheet figures, soft: not measured)",
                         hw.name, c.gbps, c.per_copy_s * 1e6);
  return p;
}

LinkProfile link_profile_from_dma_json(const std::string& path, const std::string& method) {
  const auto doc = read_json_file(path, fmt::format("--link-profile '{}'", path));
  return link_profile_from_dma_records(dma_records_from_json(doc, path), method, fmt::format("--link-profile '{}'", path));
}

LinkProfile link_profile_from_dma_records(const std::vector<DmaRecord>& records, const std::string& method,
                                          const std::string& origin) {
  std::string device, backend;
  int index = -1;
  std::map<double, double> h2d, d2h;
  for (const auto& r : records) {
    if (!is_plain_one_way(r) || to_string(r.tcase.method) != method) continue;
    if (device.empty()) {
      device = r.device.name;
      backend = r.device.backend;
      index = r.device.index;
    }
    if (r.device.name != device || r.device.index != index) continue;
    auto& curve = r.tcase.direction == Direction::kH2D ? h2d : d2h;
    curve[static_cast<double>(r.tcase.block_bytes)] = r.median_gbps;
  }
  if (h2d.empty() || d2h.empty()) {
    throw UsageError(fmt::format("{}: no verified h2d and d2h records for method '{}' "
                                 "(run kvbench dma --method {} --direction h2d,d2h --json)",
                                 origin, method, method));
  }
  LinkProfile p;
  p.h2d.measured.assign(h2d.begin(), h2d.end());
  p.d2h.measured.assign(d2h.begin(), d2h.end());
  p.source = fmt::format("measured: {} ({}, method {}, {} block sizes; interpolated between them)", origin, device,
                         method, h2d.size());
  if (backend == "host") {
    p.source += " [host backend: host-memory copies, not a GPU link]";
    p.warning = fmt::format("{} was measured by the host backend: its figures are host-memory copies, not a GPU "
                            "link; expected a kvbench dma result from a GPU",
                            origin);
  }
  return p;
}

}  // namespace kvb
