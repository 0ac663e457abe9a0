#include "perf/link_curve.hpp"

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
      p.slowdown_origin = SlowdownOrigin{.hardware = hw.name, .file = {}, .records = 0};
    }
    p.origin.figures = LinkFigures::kTableMeasured;
    p.origin.hardware = hw.name;
    p.origin.measured_by = m.source;
    return p;
  }
  LinkCurve c;
  c.gbps = hw.link_practical_gbps;
  c.per_copy_s = kDefaultPerCopySeconds;
  p.h2d = c;
  p.d2h = c;
  p.origin.figures = LinkFigures::kDatasheet;
  p.origin.hardware = hw.name;
  return p;
}

}  // namespace kvb
