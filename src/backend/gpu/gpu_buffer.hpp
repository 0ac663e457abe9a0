#pragma once
// GPU-visible memory of one kind (device, pinned, write-combined, pageable), freed with the call
// that matches how it was allocated. Included by the GPU sources (gpu_backend.cpp, blas_timer.cpp);
// internal linkage, so each runtime's object holds its own copy.
#include <cstdint>
#include <cstdlib>

#include "backend/gpu/gpu_check.hpp"
#include "core/errors.hpp"
#include "gpu_alias.hpp"

namespace kvb {
namespace {

// Owns a buffer of one memory kind and frees it with the matching call.
class GpuBuffer {
 public:
  enum class Kind { kDevice, kPinned, kWriteCombined, kPageable };
  GpuBuffer(Kind kind, std::uint64_t bytes) : kind_(kind), bytes_(bytes) {
    const std::size_t n = static_cast<std::size_t>(bytes);
    switch (kind) {
      case Kind::kDevice:
        check(gpuMalloc(&ptr_, n), "device allocation");
        break;
      case Kind::kPinned:
        check(gpuHostAlloc(&ptr_, n, gpuHostAllocMapped), "pinned host allocation");
        break;
      case Kind::kWriteCombined:
        check(gpuHostAlloc(&ptr_, n, gpuHostAllocMapped | gpuHostAllocWriteCombined),
              "write-combined allocation");
        break;
      case Kind::kPageable:
        ptr_ = std::aligned_alloc(4096, (n + 4095) / 4096 * 4096);
        if (ptr_ == nullptr) throw DeviceError("pageable host allocation failed");
        break;
    }
  }
  ~GpuBuffer() {
    if (ptr_ == nullptr) return;
    if (kind_ == Kind::kDevice)
      (void)gpuFree(ptr_);
    else if (kind_ == Kind::kPageable)
      std::free(ptr_);
    else
      (void)gpuFreeHost(ptr_);
  }
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }
  // The address a kernel uses: mapped host memory has its own device pointer.
  unsigned char* device_view() const {
    if (kind_ == Kind::kDevice) return get();
    void* d = nullptr;
    check(gpuHostGetDevicePointer(&d, ptr_, 0), "mapping host memory for the kernel");
    return static_cast<unsigned char*>(d);
  }
  bool host_side() const { return kind_ != Kind::kDevice; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  Kind kind_;
  std::uint64_t bytes_;
  void* ptr_ = nullptr;
};

}  // namespace
}  // namespace kvb
