#pragma once
// Facts about the host machine that results record.
#include <cstdint>
#include <string>

namespace kvb {

// This machine's host name (gethostname), or "unknown".
std::string host_name();

// The time now in UTC, through strftime's `format` (e.g. "%Y-%m-%d").
std::string utc_now(const char* format);

// The CPU's model name from /proc/cpuinfo, or "unknown CPU".
std::string host_cpu_model();

// The GPU kernel driver's version as operators know it ("580.159.04"), read from `root`'s
// proc/driver/nvidia/version (backend "cuda") or sys/module/amdgpu/version ("hip"); "" when absent.
std::string gpu_kernel_driver_version(const std::string& backend, const std::string& root = "/");

// MemAvailable from `root`'s proc/meminfo, in bytes; 0 when unknown.
std::uint64_t host_memory_available(const std::string& root = "/");

// A runtime's packed version as major.minor: CUDA's 13000 -> "13.0"; HIP's 60443483 -> "6.4".
std::string format_runtime_version(const std::string& backend, int packed);

}  // namespace kvb
