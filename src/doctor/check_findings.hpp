#pragma once
// What each of doctor's checks found, as figures: the check decides pass, warn, fail or skip from
// them, and output/doctor/doctor_check_text words them (the detail an operator acts on, and where the
// threshold comes from). A document read back holds the words and no finding (std::monostate).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "catalog/vllm_host_memory.hpp"
#include "dma/sysfs_link.hpp"
#include "dma/transfer_backend.hpp"
#include "doctor/node_facts.hpp"
#include "doctor/tier_dir_facts.hpp"

namespace kvb {

// The host link at 2 MiB h2d with the host pool on the GPU's own NUMA node and on a remote one.
struct NumaMeasurement {
  int gpu_index = -1;
  std::string gpu_name;  // "NVIDIA H100 80GB HBM3"
  int local_node = -1, remote_node = -1;
  double local_gbps = 0, remote_gbps = 0;
};

struct NoGpuOnBus {};

// One GPU's PCIe link as sysfs shows it; nullopt where unreadable.
struct PcieLinkFinding {
  std::string vendor;  // "nvidia", "amd"
  std::optional<PcieLink> now, max;
};

struct LinkNotMeasured {
  std::string reason;  // why no GPU was opened
};

// 2 MiB copies measured on one GPU, against the hardware table's floor where the GPU is in it.
struct LinkMeasuredFinding {
  bool waived = false, verified = true;
  std::string waive_reason;
  double gbps = 0;
  std::string backend, device_name, link;  // "cuda", "NVIDIA H100 80GB HBM3", "PCIe Gen5 x16 (sysfs)"
  std::string hardware;                    // the table's entry; "" when the GPU is not in it
  double reference_gbps = 0, floor_share = 0;
  bool reference_measured = false;  // the table's figure was measured (else the practical one)
};

struct BusyFinding {
  std::optional<DeviceInfo> device;  // nullopt: no GPU opened
  std::string no_gpu_reason;         // why, where known
};

struct NumaFinding {
  int nodes = 0;                                      // 0: unreadable
  std::vector<std::pair<std::string, int>> gpu_node;  // bus id, node (-1: the firmware does not say)
};

struct NumaMeasuredFinding {
  NumaMeasurement measured;
  double loss = 0;  // 1 - remote / local
};

struct PinningFinding {
  std::vector<PinningTiming> ways;  // the first is what the start-up is projected from
  double tier_bytes = 0;
  double startup_s = 0;  // the tier pinned the first way, at every server start
};

struct ShmFinding {
  ShmFacts shm;
  double free_bytes = 0;
  HostFootprint tier;  // dev_shm_bytes 0: the release keeps the tier in pinned tensors
};

struct MemlockFinding {
  bool known = false;
  std::string problem;          // why it is unknown
  std::optional<double> limit;  // nullopt: unlimited
  double tier_bytes = 0;
};

struct MemoryFinding {
  std::string problem;  // why MemAvailable is unknown
  double available_bytes = 0, total_bytes = 0, reserve_bytes = 0;
  HostFootprint tier;
};

struct CgroupFinding {
  CgroupMemoryFacts cgroup;
  HostFootprint tier;
};

struct HugepagesFinding {
  std::string thp_mode;  // "" unreadable
  std::int64_t reserved = 0;
  double page_bytes = 0;
};

struct IommuFinding {
  bool present = false;
  std::string mode;  // "passthrough", "translated", ""
};

struct VirtualizationFinding {
  bool hypervisor = false;
  std::string container;  // "docker", "kubernetes", ""
};

// Known failures of CPU offloading by driver, runtime and platform.
struct DriverFinding {
  std::string driver, version;  // "NVIDIA" or "amdgpu", "580.159.04"; "" none loaded
  bool runtime_newer_than_driver = false;
  bool confidential_guest = false;  // a TDX guest with an NVIDIA driver
  bool register_too_large = false;  // one cudaHostRegister of 512 GiB or more
  double tier_bytes = 0;
};

// A secondary tier's directory (--tier-dir): each check keeps the directory's facts it words.
struct TierDirFinding {
  StorageDirFacts dir;
};
struct TierFsFinding {
  StorageDirFacts dir;
};
struct TierSpaceFinding {
  StorageDirFacts dir;
  std::optional<double> size_bytes;  // --tier-dir-size; nullopt: not given
};
struct TierDirectFinding {
  StorageDirFacts dir;
};
struct TierRateFinding {
  std::string path;
  TierDirRate rate;
  std::optional<double> needs_gbps;
};

using CheckFinding =
    std::variant<std::monostate, NoGpuOnBus, PcieLinkFinding, LinkNotMeasured, LinkMeasuredFinding,
                 BusyFinding, NumaFinding, NumaMeasuredFinding, PinningFinding, ShmFinding, MemlockFinding,
                 MemoryFinding, CgroupFinding, HugepagesFinding, IommuFinding, VirtualizationFinding,
                 DriverFinding, TierDirFinding, TierFsFinding, TierSpaceFinding, TierDirectFinding,
                 TierRateFinding>;

}  // namespace kvb
