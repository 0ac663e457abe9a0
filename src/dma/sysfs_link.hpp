#pragma once
// The GPU's PCIe link as the kernel reports it (/sys/bus/pci/devices/<bdf>/current_link_*).
#include <optional>
#include <string>

namespace kvb {

struct PcieLink {
  int generation = 0;
  int width = 0;
  double ceiling_gbps = 0;  // per direction
};

// Parses "32.0 GT/s PCIe" (or "32 GT/s") and "16"; nullopt when not recognisable.
std::optional<PcieLink> parse_pcie_link(const std::string& speed, const std::string& width);

// Reads the link and NUMA node of a PCI device; bus ids like "0000:1B:00.0" (any case).
std::optional<PcieLink> read_pcie_link(const std::string& pci_bus_id);
int read_numa_node(const std::string& pci_bus_id);

}  // namespace kvb
