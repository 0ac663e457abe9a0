// Built when nvcc was not found: the CUDA backend fails clearly at run time (exit 3).
#include "backend/transfer_backend.hpp"
#include "core/errors.hpp"

namespace kvb {
std::unique_ptr<TransferBackend> make_cuda_backend(int /*device*/) {
  throw DeviceError("--backend cuda: the CUDA backend is not compiled in (rebuild with the CUDA toolkit's nvcc on "
                    "PATH); use --backend host or auto");
}
}  // namespace kvb
