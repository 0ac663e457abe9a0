#include "backend/gpu_occupancy.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <vector>

#include "backend/backend_registry.hpp"

namespace kvb {
namespace {

// The process's command name, where this PID namespace shows it.
std::string process_name(unsigned pid) {
  std::ifstream in(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(in, name);
  return name;
}

void add_other(GpuOccupancy& o, unsigned pid, double bytes) {
  if (pid == static_cast<unsigned>(::getpid())) return;  // kvbench's own context
  o.others.push_back({pid, process_name(pid), bytes});
}

class Library {
 public:
  explicit Library(const std::string& name) : handle_(dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  bool loaded() const { return handle_ != nullptr; }
  template <typename F>
  F symbol(const char* name) const {
    return reinterpret_cast<F>(dlsym(handle_, name));
  }

 private:
  void* handle_;
};

// NVML (nvml.h): nvmlProcessInfo_t of the _v2/_v3 queries is {pid, usedGpuMemory,
// gpuInstanceId, computeInstanceId}; NVML_VALUE_NOT_AVAILABLE is ~0ULL.
struct NvmlProcess {
  unsigned int pid;
  unsigned long long used;
  unsigned int gpu_instance, compute_instance;
};
struct NvmlUtilization {
  unsigned int gpu, memory;
};

// The libraries' entry points are declared here with kvbench's own types (void* for a device
// handle, its own structs): the same C ABI, but clang's -fsanitize=function compares the C++ types of
// a call through such a pointer and would take every call for undefined behaviour.
#if defined(__clang__)
#define KVB_CALLS_C_ENTRY_POINTS __attribute__((no_sanitize("function")))
#else
#define KVB_CALLS_C_ENTRY_POINTS
#endif

KVB_CALLS_C_ENTRY_POINTS GpuOccupancy probe_nvml(const DeviceInfo& d, const std::string& name) {
  GpuOccupancy o;
  const Library lib(name);
  if (!lib.loaded()) {
    o.source = "NVML not found (" + name + ")";
    return o;
  }
  using Init = int (*)();
  using ByBus = int (*)(const char*, void**);
  using Procs = int (*)(void*, unsigned int*, NvmlProcess*);
  using Util = int (*)(void*, NvmlUtilization*);
  const auto init = lib.symbol<Init>("nvmlInit_v2");
  const auto shutdown = lib.symbol<Init>("nvmlShutdown");
  const auto by_bus = lib.symbol<ByBus>("nvmlDeviceGetHandleByPciBusId_v2");
  auto procs = lib.symbol<Procs>("nvmlDeviceGetComputeRunningProcesses_v3");
  if (procs == nullptr) procs = lib.symbol<Procs>("nvmlDeviceGetComputeRunningProcesses_v2");
  const auto util = lib.symbol<Util>("nvmlDeviceGetUtilizationRates");
  if (init == nullptr || by_bus == nullptr || procs == nullptr || init() != 0) {
    o.source = "NVML did not initialise";
    return o;
  }
  void* device = nullptr;
  if (by_bus(d.pci_bus_id.c_str(), &device) == 0) {
    std::vector<NvmlProcess> list(64);
    auto count = static_cast<unsigned int>(list.size());
    if (procs(device, &count, list.data()) == 0) {
      o.queried = true;
      o.source = "NVML";
      for (unsigned i = 0; i < count && i < list.size(); ++i) {
        add_other(o, list[i].pid, list[i].used == ~0ULL ? -1.0 : static_cast<double>(list[i].used));
      }
    }
    NvmlUtilization u{};
    if (util != nullptr && util(device, &u) == 0) o.utilization_percent = static_cast<int>(u.gpu);
  }
  if (!o.queried) o.source = "NVML has no device at PCI " + d.pci_bus_id;
  if (shutdown != nullptr) (void)shutdown();
  return o;
}

// ROCm SMI (rocm_smi.h): rsmi_process_info_t is {process_id, pasid, vram_usage, sdma_usage,
// cu_occupancy}; a device's PCI id is BDFID = domain << 32 | bus << 8 | device << 3 | function.
struct RsmiProcess {
  std::uint32_t pid, pasid;
  std::uint64_t vram, sdma;
  std::uint32_t cu_occupancy;
};

std::uint64_t bdfid(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return ~0ULL;
  return (static_cast<std::uint64_t>(domain) << 32) | (bus << 8) | ((dev & 0x1f) << 3) | (fn & 0x7);
}

KVB_CALLS_C_ENTRY_POINTS GpuOccupancy probe_rocm_smi(const DeviceInfo& d, const std::string& name) {
  GpuOccupancy o;
  const Library lib(name);
  if (!lib.loaded()) {
    o.source = "ROCm SMI not found (" + name + ")";
    return o;
  }
  using Init = int (*)(std::uint64_t);
  using Done = int (*)();
  using Count = int (*)(std::uint32_t*);
  using PciId = int (*)(std::uint32_t, std::uint64_t*);
  using Procs = int (*)(RsmiProcess*, std::uint32_t*);
  using ProcGpus = int (*)(std::uint32_t, std::uint32_t*, std::uint32_t*);
  using Busy = int (*)(std::uint32_t, std::uint32_t*);
  const auto init = lib.symbol<Init>("rsmi_init");
  const auto done = lib.symbol<Done>("rsmi_shut_down");
  const auto count = lib.symbol<Count>("rsmi_num_monitor_devices");
  const auto pci = lib.symbol<PciId>("rsmi_dev_pci_id_get");
  const auto procs = lib.symbol<Procs>("rsmi_compute_process_info_get");
  const auto gpus = lib.symbol<ProcGpus>("rsmi_compute_process_gpus_get");
  const auto busy = lib.symbol<Busy>("rsmi_dev_busy_percent_get");
  if (init == nullptr || count == nullptr || pci == nullptr || procs == nullptr || gpus == nullptr ||
      init(0) != 0) {
    o.source = "ROCm SMI did not initialise";
    return o;
  }
  std::uint32_t n = 0, index = ~0U;
  (void)count(&n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t id = 0;
    if (pci(i, &id) == 0 && id == bdfid(d.pci_bus_id)) index = i;
  }
  std::uint32_t found = 0;
  if (index != ~0U && procs(nullptr, &found) == 0) {
    std::vector<RsmiProcess> list(found);
    if (found == 0 || procs(list.data(), &found) == 0) {
      o.queried = true;
      o.source = "ROCm SMI";
      for (std::uint32_t k = 0; k < found && k < list.size(); ++k) {
        std::vector<std::uint32_t> on(64);
        auto m = static_cast<std::uint32_t>(on.size());
        if (gpus(list[k].pid, on.data(), &m) != 0) continue;
        for (std::uint32_t j = 0; j < m && j < on.size(); ++j) {
          if (on[j] == index) add_other(o, list[k].pid, static_cast<double>(list[k].vram));
        }
      }
    }
    std::uint32_t percent = 0;
    if (busy != nullptr && busy(index, &percent) == 0) o.utilization_percent = static_cast<int>(percent);
  }
  if (!o.queried) o.source = "ROCm SMI has no device at PCI " + d.pci_bus_id;
  if (done != nullptr) (void)done();
  return o;
}

}  // namespace

GpuOccupancy probe_gpu_occupancy(const DeviceInfo& device, const std::string& library) {
  switch (backend_kind_of(device)) {
    case BackendKind::kCuda:
      return probe_nvml(device, library.empty() ? "libnvidia-ml.so.1" : library);
    case BackendKind::kHip:
      return probe_rocm_smi(device, library.empty() ? "librocm_smi64.so" : library);
    case BackendKind::kHost:
    case BackendKind::kAuto:
      break;
  }
  GpuOccupancy o;
  o.source = "not a GPU (" + device.backend + ")";
  return o;
}

void record_occupancy(TransferBackend& backend) {
  if (backend_kind_of(backend.info()) == BackendKind::kHost) return;
  backend.set_occupancy(probe_gpu_occupancy(backend.info()));
}

}  // namespace kvb
