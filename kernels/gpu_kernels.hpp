#pragma once
// kvbench's device code: every __global__ kernel, for CUDA and HIP alike (gpu_alias.hpp). The
// host code that launches them lives in src/backend/gpu/. Internal linkage: the CUDA and the HIP
// object each hold a copy.
#include "backend/data_pattern.hpp"
#include "gpu_alias.hpp"

namespace kvb {
namespace {

// One copy as a kernel sees it (the copy kernel and the verification kernel share the table).
struct DevCopyOp {
  unsigned long long src;
  unsigned long long dst;
  unsigned long long bytes;
};

// Grid-stride over copies, threads over 8-byte words; the lowest failing copy index wins.
__global__ void verify_blocks_kernel(const unsigned char* dst, const DevCopyOp* ops, int n,
                                     unsigned long long seed, unsigned long long src_pool,
                                     unsigned long long* first_bad) {
  for (int i = static_cast<int>(blockIdx.x); i < n; i += static_cast<int>(gridDim.x)) {
    const unsigned long long* d = reinterpret_cast<const unsigned long long*>(dst + ops[i].dst);
    const unsigned long long first_word = ops[i].src / 8;
    const unsigned long long words = ops[i].bytes / 8;
    for (unsigned long long w = threadIdx.x; w < words; w += blockDim.x) {
      if (d[w] != pattern_word(seed, src_pool, first_word + w)) {
        atomicMin(first_bad, static_cast<unsigned long long>(i));
        break;
      }
    }
  }
}

// One CTA per copy at a time (grid-stride over copies); its threads move 16-byte words.
__global__ void copy_blocks_kernel(const unsigned char* src, unsigned char* dst, const DevCopyOp* ops,
                                   int n) {
  for (int i = static_cast<int>(blockIdx.x); i < n; i += static_cast<int>(gridDim.x)) {
    const uint4* s = reinterpret_cast<const uint4*>(src + ops[i].src);
    uint4* d = reinterpret_cast<uint4*>(dst + ops[i].dst);
    const unsigned long long words = ops[i].bytes / 16;
    for (unsigned long long w = threadIdx.x; w < words; w += blockDim.x) d[w] = s[w];
  }
}

// Dependent FMA chains in registers; the store is never taken but keeps the chains live.
__global__ void compute_load_kernel(float* sink, int iterations) {
  float a = 1.0f + static_cast<float>(threadIdx.x) * 1e-6f;
  float b = 0.5f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, 0.9999999f, 1e-7f);
    b = fmaf(b, 0.9999998f, 2e-7f);
  }
  if (a + b == -1.0f) sink[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

}  // namespace
}  // namespace kvb
