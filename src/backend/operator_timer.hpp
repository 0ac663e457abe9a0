#pragma once
// Times a model's GPU operators for `kvbench calibrate` (Vidur-style operator profiling): GEMMs in
// the BLAS library of the GPU runtime (cuBLAS, hipBLAS) and a device-to-device copy for HBM
// bandwidth. Implemented in backend/gpu/blas_timer.cpp; where the library was not built in, the
// factory throws DeviceError (exit 3) saying why.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"

namespace kvb {

// One GEMM in row-major terms, `batch` independent products back to back in memory:
//   kLinear  Y[m x n] = X[m x k] . W[n x k]^T   (a linear layer, as PyTorch's F.linear calls it)
//   kPlain   Y[m x n] = X[m x k] . W[k x n]     (attention's probabilities times V)
// X is the activation side, W the weight (or KV cache) side; bf16 in and out, fp32 accumulation.
struct GemmOp {
  enum class Form { kLinear, kPlain };
  std::string label;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  Form form = Form::kLinear;

  double flops() const { return 2.0 * as_real(m) * as_real(n) * as_real(k) * as_real(batch); }
  // bf16 operands: X, W and Y each once.
  double bytes() const { return 2.0 * as_real(batch) * as_real(m * k + n * k + m * n); }
  static double as_real(std::int64_t v) { return static_cast<double>(v); }
};

// A sequence of GEMMs run back to back on one stream (one layer's worth).
struct OperatorTiming {
  double seconds = 0;  // median over the timed repetitions, one pass of the sequence
  double spread = 0;   // (max - min) / median over the repetitions
  int repetitions = 0;
  int weight_sets = 0;  // distinct copies of the operands cycled through (to defeat the L2)
};

class OperatorTimer {
 public:
  virtual ~OperatorTimer() = default;
  virtual std::string device_name() const = 0;
  virtual std::string runtime() const = 0;  // "cuda 13.0, cuBLAS 13.0.1"
  virtual std::uint64_t free_bytes() = 0;   // device memory free now
  virtual std::uint64_t l2_bytes() const = 0;

  // Allocates the operands of `ops` (`weight_sets` copies, cycled so successive passes read
  // different memory), warms up, then times `repetitions` passes with device events.
  virtual OperatorTiming time_sequence(const std::vector<GemmOp>& ops, int weight_sets, int repetitions) = 0;

  // Median seconds of one device-to-device copy of `bytes` (read + write = 2 x bytes of HBM traffic).
  virtual double time_device_copy(std::uint64_t bytes, int repetitions) = 0;
};

// kAuto: the first GPU runtime compiled in that finds a device. kHost: UsageError (there is no
// GPU operator to time). No device, no BLAS library: DeviceError naming what is missing.
std::unique_ptr<OperatorTimer> make_operator_timer(BackendKind kind, int device);

// Per runtime (backend/gpu/blas_timer.cpp or its stubs).
std::unique_ptr<OperatorTimer> make_cuda_operator_timer(int device);
std::unique_ptr<OperatorTimer> make_hip_operator_timer(int device);

}  // namespace kvb
