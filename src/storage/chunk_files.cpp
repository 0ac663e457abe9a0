#include "storage/chunk_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/path_text.hpp"

namespace kvb {

namespace {

[[noreturn]] void io_failure(const char* what, const std::string& path, int err) {
  throw DeviceError(fmt::format("storage: {} {}: {}", what, printable_path(path), std::strerror(err)));
}

}  // namespace

ChunkFiles::ChunkFiles(const std::string& dir, const StorageCase& c)
    : dir_(dir), stem_(fmt::format("kvbench-storage-{}", ::getpid())), case_(c) {
  if (c.layout != StorageLayout::kPerRankFile) {
    for (std::int64_t i = 0; i < c.chunks; ++i)
      created_.push_back(chunk_path(i));  // removed even if half-written
    return;
  }
  const auto path = chunk_path(0);
  shared_fd_ = ::open(
      path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | (c.mode == IoMode::kDirect ? O_DIRECT : 0), 0600);
  if (shared_fd_ < 0) io_failure("cannot create", path, errno);
  created_.push_back(path);
  // As the engine does: the whole file reserved up front, so writes never extend it.
  if (const int err = ::posix_fallocate(shared_fd_, 0, static_cast<off_t>(c.bytes())); err != 0) {
    io_failure("posix_fallocate", path, err);
  }
}

ChunkFiles::~ChunkFiles() {
  if (shared_fd_ >= 0) ::close(shared_fd_);
  for (const auto& p : created_) ::unlink(p.c_str());
}

std::string ChunkFiles::chunk_path(std::int64_t i) const {
  if (case_.layout == StorageLayout::kPerRankFile) return fmt::format("{}/{}-rank0.kv", dir_, stem_);
  return fmt::format("{}/{}-{}.kv", dir_, stem_, i);
}

int ChunkFiles::open_flags(bool for_write) const {
  const int direct = case_.mode == IoMode::kDirect ? O_DIRECT : 0;
  return (for_write ? O_CREAT | O_TRUNC | O_WRONLY : O_RDONLY) | O_CLOEXEC | direct;
}

int ChunkFiles::open_chunk(std::int64_t i, bool for_write) {
  if (shared_fd_ >= 0) return shared_fd_;
  const auto path = chunk_path(i);
  const int fd = ::open(path.c_str(), open_flags(for_write), 0600);
  if (fd < 0) io_failure("cannot open", path, errno);
  return fd;
}

void ChunkFiles::close_chunk(int fd) const {
  if (fd != shared_fd_) ::close(fd);
}

off_t ChunkFiles::offset(std::int64_t i) const {
  if (shared_fd_ < 0) return 0;
  return static_cast<off_t>(static_cast<std::uint64_t>(i) * case_.chunk_bytes);
}

void ChunkFiles::flush() {
  if (shared_fd_ >= 0) {
    if (::fdatasync(shared_fd_) != 0) io_failure("fdatasync", created_.front(), errno);
    return;
  }
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) io_failure("cannot open", dir_, errno);
  const int rc = ::syncfs(dfd);
  const int err = errno;
  ::close(dfd);
  if (rc != 0) io_failure("syncfs", dir_, err);
}

void ChunkFiles::drop_cache() {
  for (const auto& p : created_) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // best effort, as the advice itself is
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

}  // namespace kvb
