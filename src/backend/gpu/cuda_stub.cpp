// Built when nvcc was not found: the CUDA backend fails clearly at run time (exit 3).
#include "backend/backend_registry.hpp"
#include "core/errors.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {
namespace {
[[noreturn]] void not_compiled_in() {
  throw DeviceError(
      "--backend cuda: the CUDA backend is not compiled in (rebuild with the CUDA toolkit's nvcc on "
      "PATH); use --backend host or auto");
}
}  // namespace

std::unique_ptr<TransferBackend> make_cuda_backend(int /*device*/) { not_compiled_in(); }
int cuda_device_count() { not_compiled_in(); }
}  // namespace kvb
