#include "output/common/occupancy_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace kvb {

std::string occupancy_text(const DeviceInfo& device) {
  const auto& o = device.occupancy;
  if (!o.disturbed()) return "";
  std::string who;
  for (const auto& p : o.others) {
    who += fmt::format("{}{} pid {}{}", who.empty() ? "" : "; ", p.name.empty() ? "a process" : p.name, p.pid,
                       p.used_bytes >= 0 ? fmt::format(", {:.1f} GiB", p.used_bytes / kGiB) : std::string());
  }
  std::string out = fmt::format("GPU {} ({}) is shared: ", device.index, device.name);
  if (!o.others.empty()) {
    out += fmt::format("{} other process{} ({})", o.others.size(), o.others.size() == 1 ? "" : "es", who);
  }
  if (o.utilization_percent >= kBusyUtilizationPercent) {
    out += fmt::format("{}{}% busy before kvbench copied anything", o.others.empty() ? "" : ", ",
                       o.utilization_percent);
  }
  return out + " (per " + o.source + "); its figures are not the link's alone";
}

std::vector<std::string> occupancy_warnings(const std::vector<DeviceInfo>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) {
    if (auto line = occupancy_text(d); !line.empty()) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace kvb
