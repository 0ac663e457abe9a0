#include "storage/storage_case.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {

std::string to_string(StorageLayout l) {
  return l == StorageLayout::kFilePerChunk ? "file-per-chunk" : "per-rank-file";
}
std::string to_string(IoMode m) { return m == IoMode::kBuffered ? "buffered" : "direct"; }
std::string to_string(IoEngine e) { return e == IoEngine::kThreads ? "threads" : "io_uring"; }

StorageLayout parse_storage_layout(const std::string& text, const std::string& what) {
  if (text == "file-per-chunk") return StorageLayout::kFilePerChunk;
  if (text == "per-rank-file") return StorageLayout::kPerRankFile;
  throw UsageError(
      fmt::format("{}: '{}' is not a layout; expected file-per-chunk or per-rank-file", what, text));
}

IoMode parse_io_mode(const std::string& text, const std::string& what) {
  if (text == "buffered") return IoMode::kBuffered;
  if (text == "direct") return IoMode::kDirect;
  throw UsageError(fmt::format("{}: '{}' is not a mode; expected buffered or direct", what, text));
}

IoEngine parse_io_engine(const std::string& text, const std::string& what) {
  if (text == "threads") return IoEngine::kThreads;
  if (text == "io_uring") return IoEngine::kIoUring;
  throw UsageError(fmt::format("{}: '{}' is not an I/O engine; expected threads or io_uring", what, text));
}

std::string StorageCase::id() const {
  return fmt::format("{}/{}/{}/{}/t{}/qd{}", to_string(layout), to_string(mode), to_string(engine),
                     format_block_size(chunk_bytes), threads, queue_depth);
}

void check_sweep(const StorageSweep& s) {
  for (const auto c : s.chunk_sizes) {
    if (c == 0 || c % kChunkAlign != 0 || c > kMaxChunkBytes) {
      throw UsageError(fmt::format(
          "--chunk: {} is not a chunk size kvbench storage takes; expected a multiple of 4 KiB (O_DIRECT's "
          "alignment) from 4 KiB to 1 GiB",
          format_block_size(c)));
    }
    if (std::count(s.chunk_sizes.begin(), s.chunk_sizes.end(), c) > 1) {
      throw UsageError(
          fmt::format("--chunk: {} is listed twice; expected each chunk size once", format_block_size(c)));
    }
    if (c > s.size_bytes) {
      throw UsageError(fmt::format("--size {}: smaller than the chunk {}; expected at least one chunk",
                                   format_block_size(s.size_bytes), format_block_size(c)));
    }
  }
}

std::vector<StorageCase> plan_cases(const StorageSweep& s) {
  std::vector<StorageCase> out;
  for (const auto layout : s.layouts)
    for (const auto mode : s.modes)
      for (const auto engine : s.engines)
        for (const auto chunk : s.chunk_sizes)
          for (const int t : s.threads) {
            const auto depths = engine == IoEngine::kThreads ? std::vector<int>{1} : s.queue_depths;
            for (const int qd : depths) {
              StorageCase c{layout, mode, engine, chunk, 0, t, qd, s.seed};
              c.chunks = static_cast<std::int64_t>(s.size_bytes / chunk);
              out.push_back(c);
            }
          }
  return out;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& what, int hi) {
  std::vector<int> out;
  for (const auto& part : split(text, ',')) {
    const int v = static_cast<int>(parse_int_in(trim_copy(part), what, 1, hi));
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw UsageError(fmt::format("{} '{}': {} is listed twice; expected each value once", what, text, v));
    out.push_back(v);
  }
  if (out.empty()) throw UsageError(fmt::format("{}: empty; expected e.g. 1,4", what));
  return out;
}

}  // namespace kvb
