#include "backend/data_pattern.hpp"

#include <cstring>

namespace kvb {

void fill_pattern(void* base, std::uint64_t bytes, std::uint64_t seed, std::uint64_t pool, std::uint64_t first_byte) {
  auto* p = static_cast<unsigned char*>(base);
  const std::uint64_t first_word = first_byte / 8;
  for (std::uint64_t w = 0; w < bytes / 8; ++w) {
    const std::uint64_t v = pattern_word(seed, pool, first_word + w);
    std::memcpy(p + w * 8, &v, 8);
  }
}

}  // namespace kvb
