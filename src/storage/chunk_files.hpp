#pragma once
// The files one case writes: a file per chunk, or one preallocated per-rank file with chunk i at
// offset i x chunk. The destructor removes them, so a case leaves nothing behind on every exit
// path (an error, an interrupt at the case boundary).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "storage/storage_case.hpp"

namespace kvb {

class ChunkFiles {
 public:
  // Per-rank-file: creates the file and reserves it with posix_fallocate (DeviceError on failure).
  ChunkFiles(const std::string& dir, const StorageCase& c);
  ~ChunkFiles();
  ChunkFiles(const ChunkFiles&) = delete;
  ChunkFiles& operator=(const ChunkFiles&) = delete;

  // A descriptor for chunk i (per-rank-file: the one shared file); DeviceError naming the file.
  int open_chunk(std::int64_t i, bool for_write);
  void close_chunk(int fd) const;  // per-rank-file: nothing
  off_t offset(std::int64_t i) const;
  std::string chunk_path(std::int64_t i) const;

  // After a write pass: the data on the device (fdatasync of the per-rank file; syncfs of the
  // directory's file system for a file per chunk). Timed with the writes.
  void flush();
  // Before a read pass: POSIX_FADV_DONTNEED on every file, so buffered reads come from the device
  // (best effort: the kernel may keep pages it cannot drop).
  void drop_cache();

 private:
  std::string dir_, stem_;
  StorageCase case_;
  int shared_fd_ = -1;
  std::vector<std::string> created_;  // files to remove
  int open_flags(bool for_write) const;
};

}  // namespace kvb
