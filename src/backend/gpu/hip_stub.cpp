// Built when hipcc was not found: the HIP backend fails clearly at run time (exit 3).
#include "backend/backend_registry.hpp"
#include "core/errors.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {
namespace {
[[noreturn]] void not_compiled_in() {
  throw DeviceError(
      "--backend hip: the HIP backend is not compiled in (install hipcc and libamdhip64-dev, then "
      "rebuild); use --backend host or auto");
}
}  // namespace

std::unique_ptr<TransferBackend> make_hip_backend(int /*device*/) { not_compiled_in(); }
int hip_device_count() { not_compiled_in(); }
}  // namespace kvb
