#pragma once
// A shared GPU in words, for dma's and calibrate's stderr, doctor's busy check and compare's refusal:
// "GPU 0 (...) is shared: 2 other processes (python3 pid 4242, 38.5 GiB; ...), 97% busy before
// kvbench copied anything (per NVML); its figures are not the link's alone". The facts are the
// device's GpuOccupancy (backend/gpu_occupancy probes it).
#include <string>
#include <vector>

#include "dma/transfer_backend.hpp"

namespace kvb {

// "" when the device was not disturbed.
std::string occupancy_text(const DeviceInfo& device);
// One line each for the disturbed devices among `devices`.
std::vector<std::string> occupancy_warnings(const std::vector<DeviceInfo>& devices);

}  // namespace kvb
