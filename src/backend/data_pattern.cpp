#include "backend/data_pattern.hpp"

#include <cstring>

#include "core/parallel.hpp"

namespace kvb {

void fill_pattern(void* base, std::uint64_t bytes, std::uint64_t seed, std::uint64_t pool,
                  std::uint64_t first_byte) {
  auto* p = static_cast<unsigned char*>(base);
  const std::uint64_t first_word = first_byte / 8;
  // Pools are gigabytes: one thread fills about 1 GB/s, so the work is spread over the host's
  // threads in ranges of at least 1 Mi words.
  parallel_ranges(static_cast<std::size_t>(bytes / 8), std::size_t{1} << 20,
                  [&](std::size_t begin, std::size_t end) {
                    for (std::size_t w = begin; w < end; ++w) {
                      const std::uint64_t v = pattern_word(seed, pool, first_word + w);
                      std::memcpy(p + w * 8, &v, 8);
                    }
                  });
}

void fill_zero(void* base, std::uint64_t bytes) {
  auto* p = static_cast<unsigned char*>(base);
  parallel_ranges(static_cast<std::size_t>(bytes), std::size_t{8} << 20,
                  [&](std::size_t begin, std::size_t end) { std::memset(p + begin, 0, end - begin); });
}

}  // namespace kvb
