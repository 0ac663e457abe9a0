#include "backend/operator_timer.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

std::unique_ptr<OperatorTimer> make_operator_timer(BackendKind kind, int device) {
  switch (kind) {
    case BackendKind::kHost:
      throw UsageError(
          "--backend host: calibrate times GPU operators (cuBLAS or hipBLAS GEMMs); expected auto, cuda or "
          "hip");
    case BackendKind::kCuda:
      return make_cuda_operator_timer(device);
    case BackendKind::kHip:
      return make_hip_operator_timer(device);
    case BackendKind::kAuto:
      break;
  }
  std::string why;
  auto timer = open_first_gpu_runtime(
      [device](BackendKind runtime) {
        return runtime == BackendKind::kCuda ? make_cuda_operator_timer(device)
                                             : make_hip_operator_timer(device);
      },
      why);
  if (timer) return std::move(*timer);
  throw DeviceError(fmt::format("calibrate needs a GPU: {}", why));
}

}  // namespace kvb
