// Compiled by cmake/BatchCopyProbe.cmake with KVB_HAVE_BATCH_COPY=1: it builds only where the
// runtime headers have the batched copy API in the form src/backend/gpu/gpu_batch_copy.hpp calls it.
#include "backend/gpu/gpu_batch_copy.hpp"

int kvbench_batch_copy_probe(void** dsts, const void** srcs, std::size_t* sizes, gpuStream_t stream) {
  const gpuError_t err = kvb::batch_copy(dsts, srcs, sizes, 1, stream);
  return kvb::batch_copy_unsupported(err) ? 1 : 0;
}
