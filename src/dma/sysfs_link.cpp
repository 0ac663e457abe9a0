#include "dma/sysfs_link.hpp"

#include <fstream>

#include "core/link_ceiling.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string sysfs_dir(const std::string& bus_id) { return "/sys/bus/pci/devices/" + to_lower(bus_id); }

}  // namespace

std::optional<PcieLink> parse_pcie_link(const std::string& speed, const std::string& width) {
  double gts = 0;
  int w = 0;
  try {
    gts = std::stod(speed);
    w = std::stoi(width);
  } catch (...) {
    return std::nullopt;
  }
  const struct {
    double gts;
    int gen;
  } table[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
  for (const auto& t : table) {
    if (gts > t.gts - 0.1 && gts < t.gts + 0.1 && (w == 1 || w == 2 || w == 4 || w == 8 || w == 16)) {
      return PcieLink{t.gen, w, pcie_ceiling_gbps(t.gen, w)};
    }
  }
  return std::nullopt;
}

std::optional<PcieLink> read_pcie_link(const std::string& pci_bus_id) {
  if (pci_bus_id.empty()) return std::nullopt;
  const auto dir = sysfs_dir(pci_bus_id);
  return parse_pcie_link(read_line(dir + "/current_link_speed"), read_line(dir + "/current_link_width"));
}

int read_numa_node(const std::string& pci_bus_id) {
  if (pci_bus_id.empty()) return -1;
  try {
    return std::stoi(read_line(sysfs_dir(pci_bus_id) + "/numa_node"));
  } catch (...) {
    return -1;
  }
}

}  // namespace kvb
