#include "backend/data_pattern.hpp"

#include <cstring>

namespace kvb {

void fill_pattern(void* base, std::uint64_t bytes, std::uint64_t seed, std::uint64_t pool) {
  auto* p = static_cast<unsigned char*>(base);
  for (std::uint64_t w = 0; w < bytes / 8; ++w) {
    const std::uint64_t v = pattern_word(seed, pool, w);
    std::memcpy(p + w * 8, &v, 8);
  }
}

}  // namespace kvb
