#include "perf/link_curve.hpp"

#include <fmt/format.h>

namespace kvb {

double LinkCurve::seconds(std::int64_t blocks, double block_bytes) const {
  if (blocks <= 0) return 0;
  return static_cast<double>(blocks) * (per_copy_s + block_bytes / (gbps * 1e9));
}

LinkProfile link_profile_from_hardware(const HardwareSpec& hw) {
  LinkProfile p;
  if (const auto& m = hw.measured_link; !m.source.empty()) {
    p.h2d.gbps = m.h2d_gbps;
    p.h2d.per_copy_s = m.h2d_per_copy_us * 1e-6;
    p.d2h.gbps = m.d2h_gbps;
    p.d2h.per_copy_s = m.d2h_per_copy_us * 1e-6;
    if (hw.link_kernel_compute_slowdown > 0) {
      p.kernel_compute_slowdown = hw.link_kernel_compute_slowdown;
      p.kernel_slowdown_source = fmt::format("hardware table ({}): kvbench dma --with-compute", hw.name);
    }
    p.source = fmt::format(
        "hardware table ({}), measured: h2d {:.1f} GB/s + {:.2f} us per block copy, d2h {:.1f} GB/s "
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
  p.source = fmt::format(
      "hardware table ({}): {:.1f} GB/s per direction, {:.1f} us per block copy (datasheet figures, soft: "
      "not measured)",
      hw.name, c.gbps, c.per_copy_s * 1e6);
  return p;
}

}  // namespace kvb
