#pragma once
// Every chunk's bytes follow from (seed, chunk index) alone (backend/data_pattern's words, the
// chunk at byte index x chunk of one long pattern), so a read that returns another chunk's data,
// stale data or a torn write is caught word by word.
#include <cstdint>
#include <string>

namespace kvb {

// Fills `bytes` (whole chunks) of `dst` with chunks 0, 1, ...: the same bytes fill_chunk gives each.
void fill_chunks(std::uint8_t* dst, std::uint64_t bytes, std::uint64_t seed);
void fill_chunk(std::uint8_t* dst, std::uint64_t chunk_bytes, std::uint64_t seed, std::int64_t index);

struct ChunkMismatch {
  bool found = false;
  std::uint64_t byte_offset = 0;  // of the first differing 8-byte word, within the chunk
  std::uint64_t expected = 0, actual = 0;
};
ChunkMismatch check_chunk(const std::uint8_t* data, std::uint64_t chunk_bytes, std::uint64_t seed,
                          std::int64_t index);

// "" when every chunk of the buffer holds its pattern, else the first mismatch in words.
std::string verify_chunks(const std::uint8_t* data, std::uint64_t chunk_bytes, std::int64_t chunks,
                          std::uint64_t seed);

}  // namespace kvb
