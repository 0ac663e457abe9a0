#pragma once
// Which transfer backends this binary has and how to open one: the host reference backend, CUDA
// or HIP (real where its compiler was found at build time, otherwise a stub that says so).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {

enum class BackendKind { kAuto, kHost, kCuda, kHip };
BackendKind parse_backend(const std::string& s);  // UsageError naming --backend and the accepted names
std::string to_string(BackendKind k);
// The runtime an opened backend runs on (DeviceInfo::backend as it wrote it); DeviceError for a
// name no backend writes, never a guess.
BackendKind backend_kind_of(const DeviceInfo& device);

// kAuto: the first GPU backend compiled in that finds a device, else the host backend with
// `notice` set. An explicit GPU kind without a device throws DeviceError (exit 3).
std::unique_ptr<TransferBackend> make_backend(BackendKind kind, int device, std::string& notice);

// The devices `kind` can open: GPUs of that runtime, or --host-devices emulated host devices.
// kAuto: the first compiled GPU backend that finds one. Throws DeviceError when a GPU runtime
// fails or finds none.
int device_count(BackendKind kind);

// Which GPU backends this binary was built with: kCuda, kHip or both.
std::vector<BackendKind> compiled_gpu_backends();

// --backend auto: `open(runtime)` for each compiled GPU runtime in turn (CUDA, then HIP); the first
// that does not throw DeviceError wins. None: nullopt, and `why` lists each runtime's error.
template <class Open>
auto open_first_gpu_runtime(Open open, std::string& why)
    -> std::optional<decltype(open(BackendKind::kCuda))> {
  for (const auto kind : compiled_gpu_backends()) {
    try {
      return open(kind);
    } catch (const DeviceError& e) {
      why += (why.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  if (why.empty()) why = "no GPU backend compiled in";
  return std::nullopt;
}

// Factories of the backends (backend/gpu/gpu_backend.cpp or its stubs, backend/host/).
std::unique_ptr<TransferBackend> make_cuda_backend(int device);
std::unique_ptr<TransferBackend> make_hip_backend(int device);
int cuda_device_count();  // throws DeviceError when the runtime fails or finds none
int hip_device_count();
std::unique_ptr<TransferBackend> make_host_backend(int index = 0);

}  // namespace kvb
