#pragma once
// Theoretical GPU<->host link ceilings, per direction, in GB/s (decimal).
#include <string>

namespace kvb {

// PCIe data rate per direction after line encoding: GT/s x lanes x encoding / 8.
// Gen1-2: 8b/10b; Gen3-5: 128b/130b; Gen6: FLIT mode, 242 of 256 bytes carry data.
// Throws UsageError for generations outside 1..6 or widths not in {1,2,4,8,16}.
double pcie_ceiling_gbps(int generation, int width);

// One-line description, e.g. "PCIe Gen5 x16, 63.0 GB/s per direction".
std::string describe_pcie(int generation, int width);

}  // namespace kvb
