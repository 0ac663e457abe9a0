#pragma once
// The verification pattern: every 8-byte word of a pool is a hash of (seed, pool, offset), so a
// block copied to the wrong place, or only partly, is detected.
#include <cstddef>
#include <cstdint>

// The GPU backend's verification kernel computes the same words on the device.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KVB_HOST_DEVICE __host__ __device__
#else
#define KVB_HOST_DEVICE
#endif

namespace kvb {

KVB_HOST_DEVICE inline std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t pool,
                                                  std::uint64_t word_index) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (pool << 56) ^ word_index;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

// Fills `bytes` (a multiple of 8) of `base` with pool `pool`'s pattern, as it reads from byte
// `first_byte` of the pool on (a pool can be filled piece by piece).
void fill_pattern(void* base, std::uint64_t bytes, std::uint64_t seed, std::uint64_t pool,
                  std::uint64_t first_byte = 0);

// Zeroes `bytes` of `base` (a destination pool's cleared state), spread over the host's threads.
void fill_zero(void* base, std::uint64_t bytes);

}  // namespace kvb
