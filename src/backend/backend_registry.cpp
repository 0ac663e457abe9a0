#include <fmt/format.h>

#include "backend/transfer_backend.hpp"
#include "core/errors.hpp"

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
    case BackendKind::kHost: return make_host_backend();
    case BackendKind::kCuda: return make_cuda_backend(device);
    case BackendKind::kHip: return make_hip_backend(device);
    case BackendKind::kAuto: break;
  }
  std::string why;
  for (const auto& name : compiled_gpu_backends()) {
    try {
      return name == "cuda" ? make_cuda_backend(device) : make_hip_backend(device);
    } catch (const DeviceError& e) {
      why += fmt::format("{}{}", why.empty() ? "" : "; ", e.what());
    }
  }
  if (why.empty()) why = "no GPU backend compiled in";
  notice = fmt::format("no GPU found ({}): using the host backend; these are host-memory figures, not a GPU link", why);
  return make_host_backend();
}

}  // namespace kvb
