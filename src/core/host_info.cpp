#include "core/host_info.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "core/node_file.hpp"

namespace kvb {

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 && buf[0] != '\0' ? std::string(buf)
                                                                   : std::string("unknown");
}

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto pos = line.find(':');
      return pos == std::string::npos ? line : line.substr(pos + 2);
    }
  }
  return "unknown CPU";
}

namespace {

std::string first_line(const std::string& path) { return node_first_line(path); }

// NVML's answer, loaded at run time so kvbench needs no NVML at build time: Firecracker VMs and
// containers without /proc/driver/nvidia still carry libnvidia-ml with the driver.
std::string nvml_driver_version() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "";
  using Init = int (*)();
  using Version = int (*)(char*, unsigned int);
  auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
  auto version = reinterpret_cast<Version>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(dlsym(lib, "nvmlShutdown"));
  std::string out;
  if (init != nullptr && version != nullptr && init() == 0) {
    char buf[96] = {};
    if (version(buf, sizeof buf) == 0) out = buf;
    if (shutdown != nullptr) (void)shutdown();
  }
  dlclose(lib);
  return out;
}

}  // namespace

std::string gpu_kernel_driver_version(const std::string& backend, const std::string& root) {
  const std::string base = root.empty() || root.back() == '/' ? root : root + "/";
  if (backend == "cuda") {
    // The module's own version (sysfs), then "NVRM version: NVIDIA UNIX x86_64 Kernel Module
    // 580.159.04 ..." (procfs), then NVML where neither is visible (only for the real root).
    if (auto v = first_line(base + "sys/module/nvidia/version"); !v.empty()) return v;
    std::istringstream in(read_node_file(base + "proc/driver/nvidia/version").text);
    std::string line;
    const std::regex version(R"(Kernel Module.*?\s([0-9]+\.[0-9]+(\.[0-9]+)?)(\s|$))");
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, version)) return m[1].str();
    }
    return base == "/" ? nvml_driver_version() : "";
  }
  if (backend == "hip") return first_line(base + "sys/module/amdgpu/version");
  return "";
}

std::uint64_t host_memory_available(const std::string& root) {
  const std::string base = root.empty() || root.back() == '/' ? root : root + "/";
  std::istringstream in(read_node_file(base + "proc/meminfo").text);
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::string format_runtime_version(const std::string& backend, int packed) {
  if (packed <= 0) return "";
  if (backend == "hip") {
    // HIP_VERSION = major * 10^7 + minor * 10^5 + patch.
    return std::to_string(packed / 10000000) + "." + std::to_string(packed / 100000 % 100);
  }
  // CUDA: major * 1000 + minor * 10.
  return std::to_string(packed / 1000) + "." + std::to_string(packed % 1000 / 10);
}

std::string utc_now(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[128];
  return std::strftime(buf, sizeof buf, format, &tm) > 0 ? std::string(buf) : std::string();
}

}  // namespace kvb
