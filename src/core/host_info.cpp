#include "core/host_info.hpp"

#include <fstream>
#include <regex>
#include <string>

namespace kvb {

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

std::string gpu_kernel_driver_version(const std::string& backend, const std::string& root) {
  const std::string base = root.empty() || root.back() == '/' ? root : root + "/";
  if (backend == "cuda") {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct 30 ..." (open or
    // proprietary module alike).
    std::ifstream in(base + "proc/driver/nvidia/version");
    std::string line;
    const std::regex version(R"(Kernel Module[^0-9]*([0-9]+\.[0-9]+(\.[0-9]+)?))");
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, version)) return m[1].str();
    }
    return "";
  }
  if (backend == "hip") {
    std::ifstream in(base + "sys/module/amdgpu/version");
    std::string v;
    if (std::getline(in, v)) {
      while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
      return v;
    }
  }
  return "";
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

}  // namespace kvb
