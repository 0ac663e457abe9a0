// `kvbench calibrate`'s operator timer: GEMMs through cuBLAS (CUDA) or hipBLAS (HIP) and a device
// copy, timed with device events. One source for both runtimes, host API only (no kernels), so
// the host compiler builds it: compiled once per runtime with KVBENCH_HIP set or not.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"
#include "backend/operator_timer.hpp"
#include "core/errors.hpp"
#include "dma/statistics.hpp"
#include "gpu_alias.hpp"

#if defined(KVBENCH_HIP)
#define HIPBLAS_V2  // hipDataType and hipblasComputeType_t (hipBLAS 6+)
#include <hipblas/hipblas.h>
using blasHandle_t = hipblasHandle_t;
using blasStatus_t = hipblasStatus_t;
#define BLAS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define BLAS_OP_N HIPBLAS_OP_N
#define BLAS_OP_T HIPBLAS_OP_T
#define BLAS_BF16 HIP_R_16BF
#define BLAS_COMPUTE_32F HIPBLAS_COMPUTE_32F
#define BLAS_GEMM_DEFAULT HIPBLAS_GEMM_DEFAULT
#define blasCreate hipblasCreate
#define blasDestroy hipblasDestroy
#define blasSetStream hipblasSetStream
#define blasGemmEx hipblasGemmEx
#define blasGemmStridedBatchedEx hipblasGemmStridedBatchedEx
#define KVB_BLAS_NAME "hipBLAS"
#else
#include <cublas_v2.h>
using blasHandle_t = cublasHandle_t;
using blasStatus_t = cublasStatus_t;
#define BLAS_SUCCESS CUBLAS_STATUS_SUCCESS
#define BLAS_OP_N CUBLAS_OP_N
#define BLAS_OP_T CUBLAS_OP_T
#define BLAS_BF16 CUDA_R_16BF
#define BLAS_COMPUTE_32F CUBLAS_COMPUTE_32F
#define BLAS_GEMM_DEFAULT CUBLAS_GEMM_DEFAULT
#define blasCreate cublasCreate
#define blasDestroy cublasDestroy
#define blasSetStream cublasSetStream
#define blasGemmEx cublasGemmEx
#define blasGemmStridedBatchedEx cublasGemmStridedBatchedEx
#define KVB_BLAS_NAME \
  "cuBLAS " KVB_STR(CUBLAS_VER_MAJOR) "." KVB_STR(CUBLAS_VER_MINOR) "." KVB_STR(CUBLAS_VER_PATCH)
#define KVB_STR2(x) #x
#define KVB_STR(x) KVB_STR2(x)
#endif

namespace kvb {
namespace {

void check_blas(blasStatus_t s, const std::string& what) {
  if (s != BLAS_SUCCESS) {
    throw DeviceError(fmt::format("{}: {} failed (status {})", KVB_BLAS_NAME, what, static_cast<int>(s)));
  }
}

// One operand set of a GEMM sequence: X, W and Y of every op.
struct OperandSet {
  std::vector<std::unique_ptr<GpuBuffer>> x, w, y;
};

class BlasTimer final : public OperatorTimer {
 public:
  explicit BlasTimer(int device) {
    // The transfer backend's count: one wording for "no GPU here" (not "driver insufficient").
    const int count = std::string(KVB_GPU_RUNTIME) == "cuda" ? cuda_device_count() : hip_device_count();
    if (device < 0 || device >= count) {
      throw DeviceError(fmt::format("--device {}: this machine has {} device{}; expected 0 to {}", device,
                                    count, count == 1 ? "" : "s", count - 1));
    }
    check(gpuSetDevice(device), "selecting the device");
    gpuDeviceProp props{};
    check(gpuGetDeviceProperties(&props, device), "reading device properties");
    name_ = props.name;
    l2_ = static_cast<std::uint64_t>(std::max(props.l2CacheSize, 0));
    int rt = 0;
    check(gpuRuntimeGetVersion(&rt), "reading the runtime version");
    runtime_ = fmt::format("{} {}.{}, {}", KVB_GPU_RUNTIME, rt / 1000, (rt % 1000) / 10, KVB_BLAS_NAME);
    check(gpuStreamCreateWithFlags(&stream_, gpuStreamNonBlocking), "stream creation");
    check(gpuEventCreate(&start_), "event creation");
    check(gpuEventCreate(&stop_), "event creation");
    check_blas(blasCreate(&handle_), "creating a handle");
    check_blas(blasSetStream(handle_, stream_), "binding the stream");
    seed_ = device_buffer(kSeedBytes);
    fill_seed();
  }
  ~BlasTimer() override {
    (void)blasDestroy(handle_);
    (void)gpuEventDestroy(start_);
    (void)gpuEventDestroy(stop_);
    (void)gpuStreamDestroy(stream_);
  }
  BlasTimer(const BlasTimer&) = delete;
  BlasTimer& operator=(const BlasTimer&) = delete;

  std::string device_name() const override { return name_; }
  std::string runtime() const override { return runtime_; }
  std::uint64_t l2_bytes() const override { return l2_; }
  std::uint64_t free_bytes() override {
    std::size_t free = 0, total = 0;
    check(gpuMemGetInfo(&free, &total), "reading free device memory");
    return free;
  }

  OperatorTiming time_sequence(const std::vector<GemmOp>& ops, int weight_sets, int repetitions) override {
    weight_sets = std::max(weight_sets, 1);
    repetitions = std::max(repetitions, 1);
    std::vector<OperandSet> sets(static_cast<std::size_t>(weight_sets));
    for (auto& s : sets) {
      for (const auto& op : ops) {
        s.x.push_back(filled(2ull * op.batch * op.m * op.k));
        s.w.push_back(filled(2ull * op.batch * op.n * op.k));
        s.y.push_back(device_buffer(2ull * op.batch * op.m * op.n));
      }
    }
    const auto pass = [&] {
      for (const auto& s : sets) {
        for (std::size_t i = 0; i < ops.size(); ++i)
          run_gemm(ops[i], s.x[i]->get(), s.w[i]->get(), s.y[i]->get());
      }
    };
    // Warm-up: the library picks and loads its kernels, clocks ramp.
    for (int i = 0; i < 3; ++i) pass();
    check(gpuStreamSynchronize(stream_), "the warm-up GEMMs");
    std::vector<double> per_pass;
    for (int r = 0; r < repetitions; ++r) {
      check(gpuEventRecord(start_, stream_), "event record");
      pass();
      check(gpuEventRecord(stop_, stream_), "event record");
      check(gpuEventSynchronize(stop_), "waiting for the GEMMs");
      per_pass.push_back(elapsed() / weight_sets);
    }
    const auto summary = summarize(per_pass);
    OperatorTiming t;
    t.seconds = summary.median;
    t.spread = t.seconds > 0 ? (summary.max - summary.min) / t.seconds : 0;
    t.repetitions = repetitions;
    t.weight_sets = weight_sets;
    return t;
  }

  double time_device_copy(std::uint64_t bytes, int repetitions) override {
    auto src = filled(bytes);
    auto dst = device_buffer(bytes);
    const auto copy = [&] {
      check(
          gpuMemcpyAsync(dst->get(), src->get(), static_cast<std::size_t>(bytes), gpuMemcpyDefault, stream_),
          "device-to-device copy");
    };
    copy();
    check(gpuStreamSynchronize(stream_), "the warm-up copy");
    std::vector<double> d;
    for (int r = 0; r < std::max(repetitions, 1); ++r) {
      check(gpuEventRecord(start_, stream_), "event record");
      copy();
      check(gpuEventRecord(stop_, stream_), "event record");
      check(gpuEventSynchronize(stop_), "waiting for the copy");
      d.push_back(elapsed());
    }
    return summarize(d).median;
  }

 private:
  static constexpr std::uint64_t kSeedBytes = 16ull << 20;

  double elapsed() const {
    float ms = 0;
    check(gpuEventElapsedTime(&ms, start_, stop_), "event timing");
    return static_cast<double>(ms) / 1e3;
  }

  // Random bf16 in [-1, 1): the tensor cores' power (and so their clocks) depends on the data;
  // zeros would flatter the GEMMs.
  void fill_seed() {
    std::vector<std::uint16_t> host(kSeedBytes / 2);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& h : host) {
      const float f = dist(rng);
      std::uint32_t bits = 0;
      static_assert(sizeof(bits) == sizeof(f));
      std::memcpy(&bits, &f, sizeof f);
      h = static_cast<std::uint16_t>(bits >> 16);  // bf16: the float's upper half
    }
    check(gpuMemcpy(seed_->get(), host.data(), kSeedBytes, gpuMemcpyDefault), "filling the seed buffer");
  }

  static std::unique_ptr<GpuBuffer> device_buffer(std::uint64_t bytes) {
    return std::make_unique<GpuBuffer>(GpuBuffer::Kind::kDevice, std::max<std::uint64_t>(bytes, 256));
  }

  // A buffer tiled with the seed's random values.
  std::unique_ptr<GpuBuffer> filled(std::uint64_t bytes) {
    auto b = device_buffer(bytes);
    for (std::uint64_t off = 0; off < bytes; off += kSeedBytes) {
      const std::uint64_t n = std::min(kSeedBytes, bytes - off);
      check(gpuMemcpyAsync(b->get() + off, seed_->get(), static_cast<std::size_t>(n), gpuMemcpyDefault,
                           stream_),
            "filling an operand");
    }
    check(gpuStreamSynchronize(stream_), "filling the operands");
    return b;
  }

  // Row-major Y = X . op(W) as the column-major library sees it: Y^T = op(W)^T . X^T.
  void run_gemm(const GemmOp& op, const void* x, const void* w, void* y) {
    const float alpha = 1.0f, beta = 0.0f;
    const bool linear = op.form == GemmOp::Form::kLinear;
    const auto ta = linear ? BLAS_OP_T : BLAS_OP_N;
    const int m = static_cast<int>(op.n), n = static_cast<int>(op.m), k = static_cast<int>(op.k);
    const int lda = linear ? k : m;
    if (op.batch == 1) {
      check_blas(blasGemmEx(handle_, ta, BLAS_OP_N, m, n, k, &alpha, w, BLAS_BF16, lda, x, BLAS_BF16, k,
                            &beta, y, BLAS_BF16, m, BLAS_COMPUTE_32F, BLAS_GEMM_DEFAULT),
                 "GEMM " + op.label);
      return;
    }
    check_blas(
        blasGemmStridedBatchedEx(handle_, ta, BLAS_OP_N, m, n, k, &alpha, w, BLAS_BF16, lda, op.n * op.k, x,
                                 BLAS_BF16, k, op.m * op.k, &beta, y, BLAS_BF16, m, op.m * op.n,
                                 static_cast<int>(op.batch), BLAS_COMPUTE_32F, BLAS_GEMM_DEFAULT),
        "batched GEMM " + op.label);
  }

  std::string name_;
  std::string runtime_;
  std::uint64_t l2_ = 0;
  gpuStream_t stream_{};
  gpuEvent_t start_{}, stop_{};
  blasHandle_t handle_{};
  std::unique_ptr<GpuBuffer> seed_;
};

}  // namespace

#if defined(KVBENCH_HIP)
std::unique_ptr<OperatorTimer> make_hip_operator_timer(int device) {
  return std::make_unique<BlasTimer>(device);
}
#else
std::unique_ptr<OperatorTimer> make_cuda_operator_timer(int device) {
  return std::make_unique<BlasTimer>(device);
}
#endif

}  // namespace kvb
