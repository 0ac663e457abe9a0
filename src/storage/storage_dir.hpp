#pragma once
// The directory a storage run writes into: checked before anything is written (it exists, is a
// directory, is writable, has room), and probed for what its file system accepts.
#include <cstdint>
#include <string>

namespace kvb {

struct StorageDirFacts {
  std::string path;
  std::string fs_type;           // "ext4", "xfs", "tmpfs", ... or "0x..." when not in the table
  std::uint64_t free_bytes = 0;  // available to this user (statvfs f_bavail)
  bool direct_supported = false;
  std::string direct_refusal;  // why not: "open(O_DIRECT) failed: EINVAL (the file system refuses it)"
};

// Throws UsageError naming the directory when it is missing, not a directory or not writable.
StorageDirFacts probe_storage_dir(const std::string& dir);

// Refuses `bytes` above the directory's free space (UsageError naming it and both sizes).
void require_room(const StorageDirFacts& d, std::uint64_t bytes);

// What open(O_DIRECT)'s errno says about the file system, in words (exposed for tests: tmpfs on
// kernels before 6.6 answers EINVAL).
std::string direct_refusal_text(int err);

// The file system's name from statfs's f_type.
std::string fs_type_name(long f_type);

}  // namespace kvb
