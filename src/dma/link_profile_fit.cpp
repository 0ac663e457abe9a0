#include "dma/link_profile_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "catalog/hardware_figures.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "dma/dma_json.hpp"
#include "dma/link_fit.hpp"

namespace kvb {

LinkProfile link_profile_from_dma_json(const std::string& path, Method method) {
  // The file as the flag named it: where in errors, and LinkOrigin::file.
  const auto label = fmt::format("--link-profile '{}'", printable_path(path));
  const auto doc = read_json_file(path, label);
  return link_profile_from_dma_records(dma_records_from_json(doc, printable_path(path)), method, label);
}

LinkProfile link_profile_from_dma_records(const std::vector<DmaRecord>& records, Method m,
                                          const std::string& origin) {
  const auto method = to_string(m);
  const DmaRecord* first = nullptr;
  bool h2d = false, d2h = false;
  for (const auto& r : records) {
    if (!is_plain_one_way(r) || r.tcase.method != m) continue;
    if (first == nullptr) first = &r;
    (r.tcase.direction == Direction::kH2D ? h2d : d2h) = true;
  }
  if (first == nullptr || !h2d || !d2h) {
    throw UsageError(
        fmt::format("{}: no verified h2d and d2h records for method '{}' "
                    "(run kvbench dma --method {} --direction h2d,d2h --json)",
                    origin, method, method));
  }
  const auto fit_h2d = fit_copy_cost(records, m, Direction::kH2D, origin);
  const auto fit_d2h = fit_copy_cost(records, m, Direction::kD2H, origin);
  for (const auto* fit : {&fit_h2d, &fit_d2h}) {
    if (fit->gbps < kMinLinkGbps) {
      throw UsageError(
          fmt::format("{}: method '{}' fits the {} link at {:g} GB/s; expected at least {:g} GB/s", origin,
                      method, fit == &fit_h2d ? "h2d" : "d2h", fit->gbps, kMinLinkGbps));
    }
  }
  LinkProfile p;
  p.h2d = LinkCurve{fit_h2d.gbps, fit_h2d.per_copy_s};
  p.d2h = LinkCurve{fit_d2h.gbps, fit_d2h.per_copy_s};
  auto& o = p.origin;
  o.figures = LinkFigures::kFitted;
  o.file = origin;
  o.device = first->device.name;
  o.method = method;
  o.block_sizes = fit_h2d.points;
  o.host_backend = first->device.backend == "host";
  // The kernel method's cost to the model: the median slowdown of its --with-compute records.
  std::vector<double> slowdowns;
  for (const auto& r : records) {
    if (r.tcase.method == m && r.tcase.with_compute && r.compute_slowdown > 0)
      slowdowns.push_back(r.compute_slowdown);
  }
  if (m == Method::kKernel && !slowdowns.empty()) {
    std::sort(slowdowns.begin(), slowdowns.end());
    const auto n = slowdowns.size();
    p.kernel_compute_slowdown =
        std::max(1.0, n % 2 ? slowdowns[n / 2] : (slowdowns[n / 2 - 1] + slowdowns[n / 2]) / 2);
    p.slowdown_origin = SlowdownOrigin{.hardware = {}, .file = origin, .records = n};
  }
  return p;
}

}  // namespace kvb
