#include <fmt/format.h>

#include <array>
#include <utility>

#include "backend/backend_registry.hpp"
#include "core/errors.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {

namespace {

// The one spelling of each kind: --backend, DeviceInfo::backend and the JSON's "backend".
constexpr std::array<std::pair<BackendKind, const char*>, 4> kSpellings{{
    {BackendKind::kAuto, "auto"},
    {BackendKind::kHost, "host"},
    {BackendKind::kCuda, "cuda"},
    {BackendKind::kHip, "hip"},
}};

}  // namespace

BackendKind parse_backend(const std::string& s) {
  for (const auto& [kind, text] : kSpellings)
    if (s == text) return kind;
  throw UsageError(fmt::format("--backend '{}': expected auto, cuda, hip or host", s));
}

std::string to_string(BackendKind k) {
  for (const auto& [kind, text] : kSpellings)
    if (k == kind) return text;
  return "auto";
}

BackendKind backend_kind_of(const DeviceInfo& device) {
  for (const auto kind : {BackendKind::kHost, BackendKind::kCuda, BackendKind::kHip})
    if (device.backend == to_string(kind)) return kind;
  throw DeviceError(fmt::format("device {} reports runtime '{}'; expected host, cuda or hip", device.index,
                                device.backend));
}

std::vector<BackendKind> compiled_gpu_backends() {
  std::vector<BackendKind> out;
#ifdef KVBENCH_HAVE_CUDA
  out.push_back(BackendKind::kCuda);
#endif
#ifdef KVBENCH_HAVE_HIP
  out.push_back(BackendKind::kHip);
#endif
  return out;
}

std::unique_ptr<TransferBackend> make_backend(BackendKind kind, int device, std::string& notice) {
  switch (kind) {
    case BackendKind::kHost:
      return make_host_backend(device);
    case BackendKind::kCuda:
      return make_cuda_backend(device);
    case BackendKind::kHip:
      return make_hip_backend(device);
    case BackendKind::kAuto:
      break;
  }
  std::string why;
  auto gpu = open_first_gpu_runtime(
      [device](BackendKind runtime) {
        return runtime == BackendKind::kCuda ? make_cuda_backend(device) : make_hip_backend(device);
      },
      why);
  if (gpu) return std::move(*gpu);
  notice = fmt::format(
      "no GPU found ({}): using the host backend; these are host-memory figures, not a GPU link", why);
  return make_host_backend(0);
}

int device_count(BackendKind kind) {
  switch (kind) {
    case BackendKind::kHost:
      return 1;  // more only through --host-devices
    case BackendKind::kCuda:
      return cuda_device_count();
    case BackendKind::kHip:
      return hip_device_count();
    case BackendKind::kAuto:
      break;
  }
  std::string why;
  const auto count = open_first_gpu_runtime(
      [](BackendKind runtime) {
        return runtime == BackendKind::kCuda ? cuda_device_count() : hip_device_count();
      },
      why);
  return count.value_or(1);  // auto falls back to one host device, as make_backend does
}

}  // namespace kvb
