#pragma once
// Who else is on a GPU before kvbench measures it: NVML's running compute processes and
// utilization (NVIDIA), ROCm SMI's (AMD). Both libraries are loaded at run time, as the driver
// version is (core/host_info), so kvbench needs neither to build and runs where they are absent.
#include <string>
#include <vector>

#include "dma/transfer_backend.hpp"

namespace kvb {

// The device by its PCI bus id ("0000:1b:00.0"); kvbench's own process is left out. `library`
// names the management library to load ("" = the vendor's: libnvidia-ml.so.1, librocm_smi64.so).
GpuOccupancy probe_gpu_occupancy(const DeviceInfo& device, const std::string& library = "");

// Probes a GPU backend's device and keeps the answer in its DeviceInfo (so every record carries it;
// output/common/occupancy_text words a shared one). Host backends: nothing.
void record_occupancy(TransferBackend& backend);

}  // namespace kvb
