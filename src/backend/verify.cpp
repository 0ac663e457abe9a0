#include "backend/verify.hpp"

#include <fmt/format.h>

#include <cstring>

#include "backend/data_pattern.hpp"

namespace kvb {

std::string verify_copies(const std::vector<CopyOp>& ops, const void* dst, std::uint64_t seed, std::uint64_t src_pool) {
  const auto* d = static_cast<const unsigned char*>(dst);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    for (std::uint64_t b = 0; b < op.bytes; b += 8) {
      std::uint64_t got = 0;
      std::memcpy(&got, d + op.dst_offset + b, 8);
      const std::uint64_t want = pattern_word(seed, src_pool, (op.src_offset + b) / 8);
      if (got != want) {
        return fmt::format("copy {} (src offset {}, dst offset {}): byte {} differs", i, op.src_offset,
                           op.dst_offset, b);
      }
    }
  }
  return "";
}

}  // namespace kvb
