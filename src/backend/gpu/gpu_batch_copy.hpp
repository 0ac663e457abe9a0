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

#if defined(KVBENCH_HIP)
using gpuMemcpyAttributes = hipMemcpyAttributes;
#define gpuMemcpySrcAccessOrderStream hipMemcpySrcAccessOrderStream
#define gpuMemcpyBatchAsync hipMemcpyBatchAsync
#define KVB_BATCH_FAIL_INDEX 1  // HIP keeps CUDA 12.8's failure-index argument
#else
using gpuMemcpyAttributes = cudaMemcpyAttributes;
#define gpuMemcpySrcAccessOrderStream cudaMemcpySrcAccessOrderStream
#define gpuMemcpyBatchAsync cudaMemcpyBatchAsync
#if CUDART_VERSION < 13000
#define KVB_BATCH_FAIL_INDEX 1
#endif
#endif

// Every copy in one attribute set: sources read in stream order (pinned or pageable host memory).
inline gpuError_t batch_copy(void** dsts, const void** srcs, std::size_t* sizes, std::size_t count,
                             gpuStream_t stream) {
  gpuMemcpyAttributes attr{};
  attr.srcAccessOrder = gpuMemcpySrcAccessOrderStream;
  std::size_t attr_index = 0;
#if defined(KVB_BATCH_FAIL_INDEX)
  std::size_t fail_index = 0;
  return gpuMemcpyBatchAsync(dsts, const_cast<void**>(srcs), sizes, count, &attr, &attr_index, 1, &fail_index,
                             stream);
#else
  return gpuMemcpyBatchAsync(dsts, srcs, sizes, count, &attr, &attr_index, 1, stream);
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
