#include "storage/io_pass.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "core/path_text.hpp"

namespace kvb {

namespace {

// The whole chunk, resuming after a short transfer; "" or the failure in words.
std::string transfer_chunk(int fd, std::uint8_t* p, std::uint64_t n, off_t off, PassKind kind) {
  std::uint64_t done = 0;
  while (done < n) {
    const auto at = off + static_cast<off_t>(done);
    const ssize_t got =
        kind == PassKind::kWrite ? ::pwrite(fd, p + done, n - done, at) : ::pread(fd, p + done, n - done, at);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::strerror(errno);
    if (got == 0) return fmt::format("end of file after {} of {} bytes", done, n);
    done += static_cast<std::uint64_t>(got);
  }
  return "";
}

// Threads claim chunks one at a time: with T threads, T requests are in flight.
void threads_pass(const StorageCase& c, ChunkFiles& files, HostBuffer& buffer, PassKind kind) {
  std::atomic<std::int64_t> next{0};
  std::mutex m;
  std::string failure;
  auto worker = [&] {
    for (std::int64_t i = next++; i < c.chunks; i = next++) {
      std::string err;
      try {
        const int fd = files.open_chunk(i, kind == PassKind::kWrite);
        err = transfer_chunk(fd, buffer.data() + static_cast<std::uint64_t>(i) * c.chunk_bytes, c.chunk_bytes,
                             files.offset(i), kind);
        files.close_chunk(fd);
        if (!err.empty())
          err = fmt::format("storage: {} {}: {}", kind == PassKind::kWrite ? "write" : "read",
                            printable_path(files.chunk_path(i)), err);
      } catch (const DeviceError& e) {
        err = e.what();  // the open's failure, already naming the file
      }
      if (err.empty()) continue;
      const std::lock_guard<std::mutex> lock(m);
      if (failure.empty()) failure = err;
      next = c.chunks;  // the others stop at their next chunk
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < c.threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!failure.empty()) throw DeviceError(failure);
}

}  // namespace

double run_io_pass(const StorageCase& c, ChunkFiles& files, HostBuffer& buffer, PassKind kind) {
  const auto start = std::chrono::steady_clock::now();
  if (c.engine == IoEngine::kIoUring) {
    io_uring_pass(c, files, buffer, kind);
  } else {
    threads_pass(c, files, buffer, kind);
  }
  if (kind == PassKind::kWrite) files.flush();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kvb
