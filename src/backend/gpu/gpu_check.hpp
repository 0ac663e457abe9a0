#pragma once
// Turns a failed CUDA/HIP runtime call into a DeviceError (exit 3) that names the call.
#include <string>

#include "core/errors.hpp"
#include "gpu_alias.hpp"

namespace kvb {
// Internal linkage: the CUDA and the HIP object both hold a copy.
namespace {

inline void check(gpuError_t err, const char* what) {
  if (err != gpuSuccess) {
    throw DeviceError(std::string(KVB_GPU_RUNTIME) + ": " + what + " failed: " + gpuGetErrorString(err));
  }
}

}  // namespace
}  // namespace kvb
