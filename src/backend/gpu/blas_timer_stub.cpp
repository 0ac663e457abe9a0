// The operator timers this binary lacks: each fails clearly at run time (exit 3), saying what the
// build did not find.
#include "backend/operator_timer.hpp"
#include "core/errors.hpp"

namespace kvb {

#if !defined(KVBENCH_HAVE_CUDA_BLAS)
std::unique_ptr<OperatorTimer> make_cuda_operator_timer(int /*device*/) {
  throw DeviceError(
      "--backend cuda: the CUDA backend is not compiled in (rebuild with the CUDA toolkit's nvcc on PATH; "
      "calibrate also needs its cuBLAS)");
}
#endif

#if !defined(KVBENCH_HAVE_HIP_BLAS)
std::unique_ptr<OperatorTimer> make_hip_operator_timer(int /*device*/) {
#if defined(KVBENCH_HAVE_HIP)
  throw DeviceError(
      "--backend hip: calibrate is waived on HIP in this build: hipBLAS was not found when it was built "
      "(Debian 12 does not package it; install ROCm's hipblas-dev and rebuild)");
#else
  throw DeviceError(
      "--backend hip: the HIP backend is not compiled in (apt-get install hipcc libamdhip64-dev, and "
      "ROCm's hipblas-dev for calibrate, then rebuild)");
#endif
}
#endif

}  // namespace kvb
