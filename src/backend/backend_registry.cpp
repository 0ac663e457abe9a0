#include <fmt/format.h>

#include "backend/backend_registry.hpp"
#include "core/errors.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {

BackendKind parse_backend(const std::string& s) {
  if (s == "auto") return BackendKind::kAuto;
  if (s == "host") return BackendKind::kHost;
  if (s == "cuda") return BackendKind::kCuda;
  if (s == "hip") return BackendKind::kHip;
  throw UsageError(fmt::format("--backend '{}': expected auto, cuda, hip or host", s));
}

std::vector<std::string> compiled_gpu_backends() {
  std::vector<std::string> out;
#ifdef KVBENCH_HAVE_CUDA
  out.push_back("cuda");
#endif
#ifdef KVBENCH_HAVE_HIP
  out.push_back("hip");
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
      [device](const std::string& name) {
        return name == "cuda" ? make_cuda_backend(device) : make_hip_backend(device);
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
      [](const std::string& name) { return name == "cuda" ? cuda_device_count() : hip_device_count(); }, why);
  return count.value_or(1);  // auto falls back to one host device, as make_backend does
}

}  // namespace kvb
