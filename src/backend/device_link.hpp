#pragma once
// Which host link a GPU sits on, and its theoretical ceiling per direction: the kernel's sysfs
// PCIe figures when it has them; otherwise the hardware catalog's entry for the GPU's name
// (NVLink-C2C on GH200/GB200, which sysfs does not describe; the nominal PCIe link in VMs that
// hide it); otherwise unknown. The description always says which source it came from.
#include <optional>
#include <string>

#include "dma/sysfs_link.hpp"

namespace kvb {

struct DeviceLink {
  std::string description;  // e.g. "PCIe Gen5 x16 (sysfs)"
  double ceiling_gbps = 0;  // per direction; 0 = unknown
};

DeviceLink resolve_device_link(const std::string& device_name, const std::optional<PcieLink>& sysfs);

}  // namespace kvb
