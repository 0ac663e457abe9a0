#include "dma/link_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/errors.hpp"

namespace kvb {

CopyCostFit fit_copy_cost(const std::vector<std::pair<double, double>>& points) {
  std::set<double> sizes;
  for (const auto& [b, t] : points) {
    if (!(b > 0 && t > 0))
      throw UsageError(fmt::format("link fit: a point ({} B, {} s) is not positive", b, t));
    sizes.insert(b);
  }
  if (sizes.size() < 2) throw UsageError("link fit: expected copies of at least two block sizes");
  // Minimise sum w (t0 + b x - t)^2 with w = 1 / t^2, x = 1 / B: the 2x2 normal equations.
  double sw = 0, sb = 0, st = 0, sbb = 0, sbt = 0;
  for (const auto& [b, t] : points) {
    const double w = 1.0 / (t * t);
    sw += w;
    sb += w * b;
    st += w * t;
    sbb += w * b * b;
    sbt += w * b * t;
  }
  const double det = sw * sbb - sb * sb;
  CopyCostFit f;
  const double slope = (sw * sbt - sb * st) / det;
  f.per_copy_s = std::max(0.0, (st * sbb - sb * sbt) / det);
  f.gbps = slope > 0 ? 1.0 / slope / 1e9 : 0.0;
  if (!(f.gbps > 0))
    throw UsageError("link fit: copy time does not grow with block size; expected a link profile");
  f.points = points.size();
  for (const auto& [b, t] : points)
    f.max_relative_error = std::max(f.max_relative_error, std::abs(f.seconds(b) - t) / t);
  return f;
}

CopyCostFit fit_copy_cost(const std::vector<DmaRecord>& records, Method method, Direction direction,
                          const std::string& origin) {
  std::vector<std::pair<double, double>> points;
  const DeviceInfo* device = nullptr;  // the first device's records only
  for (const auto& r : records) {
    const auto& c = r.tcase;
    if (!is_plain_one_way(r) || c.method != method || c.direction != direction || r.median_gbps <= 0)
      continue;
    if (device == nullptr) device = &r.device;
    if (r.device.name != device->name || r.device.index != device->index) continue;
    points.emplace_back(static_cast<double>(c.block_bytes),
                        static_cast<double>(c.block_bytes) / (r.median_gbps * 1e9));
  }
  try {
    return fit_copy_cost(points);
  } catch (const UsageError& e) {
    throw UsageError(
        fmt::format("{}: cannot fit {} {}: {}", origin, to_string(method), to_string(direction), e.what()));
  }
}

}  // namespace kvb
