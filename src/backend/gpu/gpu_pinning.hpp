#pragma once
// doctor's pinning test on a GPU: the two ways inference servers pin a CPU KV tier, each timed
// from allocation to pinned memory. cudaHostAlloc (PyTorch's pin_memory, LMCache) allocates
// pinned pages in one call; vLLM's native tier maps a file in /dev/shm, touches it and registers
// it with cudaHostRegister. A failed registration leaves an error pending in the runtime, which
// is cleared so the next call does not report it (vLLM hit exactly this: vllm-project/vllm#51081).
// Included by gpu_backend.cpp only (one CUDA/HIP translation unit).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "dma/transfer_backend.hpp"
#include "gpu_alias.hpp"

namespace kvb {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

PinningTiming time_host_alloc(std::uint64_t bytes) {
  PinningTiming p;
  p.how = std::string(KVB_GPU_RUNTIME) == "hip" ? "hipHostMalloc" : "cudaHostAlloc";
  p.bytes = static_cast<double>(bytes);
  void* ptr = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const gpuError_t e = gpuHostAlloc(&ptr, static_cast<std::size_t>(bytes), gpuHostAllocDefault);
  p.seconds = seconds_since(start);
  if (e != gpuSuccess) {
    p.error = gpuGetErrorString(e);
    (void)gpuGetLastError();
    return p;
  }
  (void)gpuFreeHost(ptr);
  return p;
}

// vLLM's way: a file in `shm_dir`, allocated, mapped shared, touched, then registered.
PinningTiming time_shm_register(std::uint64_t bytes, const std::string& shm_dir) {
  PinningTiming p;
  const bool hip = std::string(KVB_GPU_RUNTIME) == "hip";
  p.how = std::string("mmap of a ") + shm_dir + " file + first touch + " +
          (hip ? "hipHostRegister" : "cudaHostRegister") + " (vLLM's CPU tier)";
  p.bytes = static_cast<double>(bytes);
  p.server_tier = true;
  const std::string path = shm_dir + "/kvbench-doctor-pinning-" + std::to_string(::getpid());
  const auto size = static_cast<std::size_t>(bytes);
  const auto start = std::chrono::steady_clock::now();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    p.error = "creating " + path + ": " + std::strerror(errno);
    return p;
  }
  ::unlink(path.c_str());  // the mapping keeps the pages; nothing is left behind on a crash
  const int fallocated = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (fallocated != 0) {
    p.error = "allocating the file in " + shm_dir + ": " + std::strerror(fallocated);
    ::close(fd);
    return p;
  }
  void* ptr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (ptr == MAP_FAILED) {
    p.error = std::string("mmap: ") + std::strerror(errno);
    return p;
  }
  std::memset(ptr, 0, size);
  const gpuError_t e = gpuHostRegister(ptr, size, gpuHostRegisterDefault);
  p.seconds = seconds_since(start);
  if (e != gpuSuccess) {
    p.error = std::string(hip ? "hipHostRegister: " : "cudaHostRegister: ") + gpuGetErrorString(e);
    (void)gpuGetLastError();
  } else {
    (void)gpuHostUnregister(ptr);
  }
  ::munmap(ptr, size);
  return p;
}

std::vector<PinningTiming> measure_gpu_pinning(std::uint64_t bytes, const std::string& shm_dir) {
  (void)gpuFree(nullptr);  // the context exists before anything is timed
  return {time_shm_register(bytes, shm_dir), time_host_alloc(bytes)};
}

}  // namespace
}  // namespace kvb
