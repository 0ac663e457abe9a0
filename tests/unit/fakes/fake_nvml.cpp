// A stand-in for libnvidia-ml.so.1 with the calls kvbench's occupancy probe makes, answering from
// the environment so a test decides what the "GPU" runs (no GPU or driver needed):
//   FAKE_NVML_BUS   the one PCI bus id it knows ("0000:1b:00.0")
//   FAKE_NVML_PIDS  "pid:bytes,pid:bytes" running compute processes ("pid:-" for an unknown size)
//   FAKE_NVML_UTIL  the GPU utilization percent (absent: the call fails)
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kSuccess = 0, kNotFound = 6, kInsufficientSize = 7;
int g_device = 0;  // the one handle handed out

struct ProcessInfo {  // nvmlProcessInfo_t (v2 layout)
  unsigned int pid;
  unsigned long long used;
  unsigned int gpu_instance, compute_instance;
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

}  // namespace

extern "C" {

int nvmlInit_v2() { return kSuccess; }
int nvmlShutdown() { return kSuccess; }

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** device) {
  if (std::strcmp(bus, env("FAKE_NVML_BUS")) != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void* /*device*/, unsigned int* count, ProcessInfo* infos) {
  std::string list = env("FAKE_NVML_PIDS");
  unsigned int n = 0;
  std::size_t at = 0;
  while (at < list.size()) {
    auto end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    const auto item = list.substr(at, end - at);
    const auto colon = item.find(':');
    if (n < *count) {
      infos[n].pid = static_cast<unsigned int>(std::strtoul(item.c_str(), nullptr, 10));
      const auto bytes = item.substr(colon + 1);
      infos[n].used = bytes == "-" ? ~0ULL : std::strtoull(bytes.c_str(), nullptr, 10);
      infos[n].gpu_instance = infos[n].compute_instance = 0xFFFFFFFF;
    }
    ++n;
    at = end + 1;
  }
  const bool fits = n <= *count;
  *count = n;
  return fits ? kSuccess : kInsufficientSize;
}

struct Utilization {
  unsigned int gpu, memory;
};

int nvmlDeviceGetUtilizationRates(void* /*device*/, Utilization* u) {
  const char* v = env("FAKE_NVML_UTIL");
  if (*v == '\0') return kNotFound;
  u->gpu = static_cast<unsigned int>(std::strtoul(v, nullptr, 10));
  u->memory = 0;
  return kSuccess;
}

}  // extern "C"
