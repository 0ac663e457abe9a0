#include "output/common/link_origin_text.hpp"

#include <fmt/format.h>

namespace kvb {
namespace {

// The table's measurement by its name, without the parenthesised detail.
std::string measurement_name(const LinkOrigin& o) {
  return o.measured_by.substr(0, o.measured_by.find(" ("));
}

}  // namespace

std::string link_source_text(const LinkProfile& p) {
  const auto& o = p.origin;
  switch (o.figures) {
    case LinkFigures::kDatasheet:
      return fmt::format(
          "hardware table ({}): {:.1f} GB/s per direction, {:.1f} us per block copy (datasheet figures, "
          "soft: "
          "not measured)",
          o.hardware, p.h2d.gbps, p.h2d.per_copy_s * 1e6);
    case LinkFigures::kTableMeasured:
      return fmt::format(
          "hardware table ({}), measured: h2d {:.1f} GB/s + {:.2f} us per block copy, d2h {:.1f} GB/s + "
          "{:.2f} "
          "us ({})",
          o.hardware, p.h2d.gbps, p.h2d.per_copy_s * 1e6, p.d2h.gbps, p.d2h.per_copy_s * 1e6,
          measurement_name(o));
    case LinkFigures::kFitted:
      break;
  }
  return fmt::format(
      "measured: {} ({}, method {}, fitted t = t0 + bytes/B over {} block sizes: h2d {:.1f} GB/s + {:.2f} us "
      "per "
      "block copy, d2h {:.1f} GB/s + {:.2f} us){}",
      o.file, o.device, o.method, o.block_sizes, p.h2d.gbps, p.h2d.per_copy_s * 1e6, p.d2h.gbps,
      p.d2h.per_copy_s * 1e6, o.host_backend ? " [host backend: host-memory copies, not a GPU link]" : "");
}

std::string reload_link_text(const LinkProfile& p, bool given) {
  if (given) return link_source_text(p);
  const auto& o = p.origin;
  if (o.figures == LinkFigures::kTableMeasured) {
    return fmt::format("{} h2d link measured by kvbench dma, {}", o.hardware, measurement_name(o));
  }
  return fmt::format(
      "{} practical pinned-copy figure from the hardware table (soft); `kvbench dma` measures this node",
      o.hardware);
}

std::string link_warning_text(const LinkProfile& p) {
  if (!p.origin.host_backend) return "";
  return fmt::format(
      "{} was measured by the host backend: its figures are host-memory copies, not a GPU link; expected a "
      "kvbench dma result from a GPU",
      p.origin.file);
}

std::string slowdown_source_text(const SlowdownOrigin& o) {
  if (!o.hardware.empty()) return fmt::format("hardware table ({}): kvbench dma --with-compute", o.hardware);
  return fmt::format("{}: median of {} --with-compute records", o.file, o.records);
}

}  // namespace kvb
