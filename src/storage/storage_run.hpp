#pragma once
// Runs one storage case: per repetition, a fresh set of files, the write pass (flushed), the page
// cache dropped, the read pass into a cleared buffer, and every chunk checked against its pattern.
#include <functional>

#include "storage/chunk_files.hpp"
#include "storage/storage_dir.hpp"
#include "storage/storage_record.hpp"

namespace kvb {

struct StorageRunSettings {
  int repeats = 3;
  // Called between the write and the read pass (tests corrupt a chunk's file here).
  std::function<void(ChunkFiles&)> after_write;
};

// A direct case on a directory that refuses O_DIRECT, or an io_uring case in a build without
// liburing, comes back waived with the reason. A chunk that reads back wrong ends the case
// unverified. DeviceError on an I/O error.
StorageRecord run_storage_case(const StorageDirFacts& dir, const StorageCase& c, const StorageRunSettings& s);

}  // namespace kvb
