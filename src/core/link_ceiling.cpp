#include "core/link_ceiling.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

double pcie_ceiling_gbps(int generation, int width) {
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) {
    throw UsageError(fmt::format("PCIe width x{} is not a link width; expected 1, 2, 4, 8 or 16", width));
  }
  double gts = 0;
  double encoding = 0;
  switch (generation) {
    case 1:
      gts = 2.5;
      encoding = 8.0 / 10.0;
      break;
    case 2:
      gts = 5.0;
      encoding = 8.0 / 10.0;
      break;
    case 3:
      gts = 8.0;
      encoding = 128.0 / 130.0;
      break;
    case 4:
      gts = 16.0;
      encoding = 128.0 / 130.0;
      break;
    case 5:
      gts = 32.0;
      encoding = 128.0 / 130.0;
      break;
    case 6:
      gts = 64.0;
      encoding = 242.0 / 256.0;
      break;
    default:
      throw UsageError(fmt::format("PCIe generation {} is unknown; expected 1 to 6", generation));
  }
  return gts * width * encoding / 8.0;
}

std::string describe_pcie(int generation, int width) {
  return fmt::format("PCIe Gen{} x{}, {:.1f} GB/s per direction", generation, width,
                     pcie_ceiling_gbps(generation, width));
}

}  // namespace kvb
