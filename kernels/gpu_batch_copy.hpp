#pragma once
// ce-batch: one runtime call submits every block. cudaMemcpyBatchAsync arrived in CUDA 12.8 (CUDA
// 13 dropped its failure-index argument); hipMemcpyBatchAsync in HIP 7. This header is compiled
// against the runtime by CMake's probe (cmake/BatchCopyProbe.cmake) first; KVB_HAVE_BATCH_COPY is
// set only where that compile passed, so a runtime without the API waives ce-batch instead of
// breaking the build. Included by gpu_backend.cpp only (one CUDA/HIP translation unit).
#include <cstddef>
#include <string>

#include "gpu_alias.hpp"

namespace kvb {
namespace {

#if defined(KVB_HAVE_BATCH_COPY)
constexpr bool kHaveBatchCopy = true;

// Every copy in one attribute set: sources read in stream order (pinned or pageable host memory).
inline gpuError_t batch_copy(void** dsts, const void** srcs, std::size_t* sizes, std::size_t count,
                             gpuStream_t stream) {
#if defined(KVBENCH_HIP)
  hipMemcpyAttributes attr{};
  attr.srcAccessOrder = hipMemcpySrcAccessOrderStream;
  std::size_t attr_index = 0;
  std::size_t fail_index = 0;
  return hipMemcpyBatchAsync(dsts, const_cast<void**>(srcs), sizes, count, &attr, &attr_index, 1, &fail_index,
                             stream);
#elif CUDART_VERSION >= 13000
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  std::size_t attr_index = 0;
  return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attr, &attr_index, 1, stream);
#else
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  std::size_t attr_index = 0;
  std::size_t fail_index = 0;
  return cudaMemcpyBatchAsync(dsts, const_cast<void**>(srcs), sizes, count, &attr, &attr_index, 1, &fail_index,
                              stream);
#endif
}

// A runtime built with the API can still sit on a driver without it: those errors waive the
// case (with the runtime's words); any other error is a device error.
inline bool batch_copy_unsupported(gpuError_t err) {
#if defined(KVBENCH_HIP)
  return err == hipErrorNotSupported;
#else
  return err == cudaErrorNotSupported || err == cudaErrorCallRequiresNewerDriver ||
         err == cudaErrorInsufficientDriver;
#endif
}
#else
constexpr bool kHaveBatchCopy = false;
#endif

}  // namespace
}  // namespace kvb
