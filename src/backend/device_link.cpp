#include "backend/device_link.hpp"

#include <fmt/format.h>

#include "catalog/hardware_spec.hpp"

namespace kvb {

DeviceLink resolve_device_link(const std::string& device_name, const std::optional<PcieLink>& sysfs) {
  const auto hw_name = hardware_for_device_name(device_name);
  // Grace-Hopper/Blackwell superchips: sysfs shows no PCIe link to the CPU; the catalog knows C2C.
  if (!hw_name.empty()) {
    const auto hw = resolve_hardware(hw_name);
    if (hw.link == HostLinkKind::kNvlinkC2C) {
      return {fmt::format("{} (hardware table: {})", hw.link_description(), hw.name), hw.link_ceiling_gbps()};
    }
  }
  if (sysfs) {
    return {fmt::format("PCIe Gen{} x{} (sysfs)", sysfs->generation, sysfs->width), sysfs->ceiling_gbps};
  }
  if (!hw_name.empty()) {
    const auto hw = resolve_hardware(hw_name);
    return {fmt::format("{} (hardware table: {}; sysfs shows no PCIe link, as in a VM)",
                        hw.link_description(), hw.name),
            hw.link_ceiling_gbps()};
  }
  return {"unknown (no PCIe link in sysfs and the GPU is not in the hardware catalog)", 0};
}

}  // namespace kvb
