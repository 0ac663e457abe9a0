#include "storage/chunk_pattern.hpp"

#include <fmt/format.h>

#include <cstring>

#include "backend/data_pattern.hpp"

namespace kvb {

namespace {
// Pool number of the storage pattern (dma's pools are 0 and 1): a chunk read from a dma pool's
// bytes does not pass.
constexpr std::uint64_t kStoragePool = 7;
}  // namespace

void fill_chunks(std::uint8_t* dst, std::uint64_t bytes, std::uint64_t seed) {
  fill_pattern(dst, bytes, seed, kStoragePool, 0);
}

void fill_chunk(std::uint8_t* dst, std::uint64_t chunk_bytes, std::uint64_t seed, std::int64_t index) {
  fill_pattern(dst, chunk_bytes, seed, kStoragePool, static_cast<std::uint64_t>(index) * chunk_bytes);
}

ChunkMismatch check_chunk(const std::uint8_t* data, std::uint64_t chunk_bytes, std::uint64_t seed,
                          std::int64_t index) {
  const std::uint64_t first_word = static_cast<std::uint64_t>(index) * chunk_bytes / 8;
  for (std::uint64_t w = 0; w < chunk_bytes / 8; ++w) {
    std::uint64_t actual = 0;
    std::memcpy(&actual, data + w * 8, 8);
    const auto expected = pattern_word(seed, kStoragePool, first_word + w);
    if (actual != expected) return {true, w * 8, expected, actual};
  }
  return {};
}

std::string verify_chunks(const std::uint8_t* data, std::uint64_t chunk_bytes, std::int64_t chunks,
                          std::uint64_t seed) {
  for (std::int64_t i = 0; i < chunks; ++i) {
    const auto m = check_chunk(data + static_cast<std::uint64_t>(i) * chunk_bytes, chunk_bytes, seed, i);
    if (m.found) {
      return fmt::format("chunk {} byte {}: read 0x{:016x}, expected 0x{:016x}", i, m.byte_offset, m.actual,
                         m.expected);
    }
  }
  return "";
}

}  // namespace kvb
