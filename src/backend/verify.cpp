#include "backend/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "backend/data_pattern.hpp"
#include "core/parallel.hpp"

namespace kvb {
namespace {

// Ranges of copies worth a thread: about 4 MiB of checking each.
std::size_t copies_per_range(const std::vector<CopyOp>& ops) {
  const std::uint64_t bytes = ops.empty() ? 1 : ops.front().bytes;
  return static_cast<std::size_t>(
      std::max<std::uint64_t>(1, (4ULL << 20) / std::max<std::uint64_t>(bytes, 1)));
}

}  // namespace

std::string verify_copies(const std::vector<CopyOp>& ops, const void* dst, std::uint64_t seed,
                          std::uint64_t src_pool) {
  const auto* d = static_cast<const unsigned char*>(dst);
  std::mutex m;
  std::size_t first_bad = std::numeric_limits<std::size_t>::max();
  std::string detail;
  parallel_ranges(ops.size(), copies_per_range(ops), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const auto& op = ops[i];
      for (std::uint64_t b = 0; b < op.bytes; b += 8) {
        std::uint64_t got = 0;
        std::memcpy(&got, d + op.dst_offset + b, 8);
        if (got == pattern_word(seed, src_pool, (op.src_offset + b) / 8)) continue;
        std::lock_guard<std::mutex> lock(m);
        if (i < first_bad) {
          first_bad = i;
          detail = fmt::format("copy {} (src offset {}, dst offset {}): byte {} differs", i, op.src_offset,
                               op.dst_offset, b);
        }
        return;  // later copies of this range cannot be lower
      }
    }
  });
  return detail;
}

void clear_destinations(const std::vector<CopyOp>& ops, void* dst) {
  auto* d = static_cast<unsigned char*>(dst);
  parallel_ranges(ops.size(), copies_per_range(ops), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      std::memset(d + ops[i].dst_offset, 0, static_cast<std::size_t>(ops[i].bytes));
  });
}

}  // namespace kvb
