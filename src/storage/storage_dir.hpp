#pragma once
// The directory a storage run writes into: checked before anything is written (it exists, is a
// directory, is writable, has room), and probed for what its file system accepts.
#include <cstdint>
#include <optional>
#include <string>

#include "storage/fs_type.hpp"

namespace kvb {

// Why the directory cannot take a tier's files (kNone: it can).
enum class DirProblem { kNone, kMissing, kNotDirectory, kNotWritable, kCannotCreate };

struct StorageDirFacts {
  std::string path;
  std::string fs_type;           // "ext4", "xfs", "tmpfs", ... or "0x..." when not in the table
  std::uint64_t free_bytes = 0;  // available to this user (statvfs f_bavail)
  bool direct_supported = false;
  std::string direct_refusal;  // why not: "open(O_DIRECT) failed: EINVAL (the file system refuses it)"
  std::uint32_t fs_magic = 0;  // statfs's f_type; 0 where statfs failed
  FsKind fs_kind = FsKind::kUnknown;
  std::uint64_t total_bytes = 0;  // the file system's size (statvfs f_blocks)
  // Inodes available to this user (statvfs f_favail); absent where the file system counts none
  // (f_files 0: btrfs, procfs), so no bound is known.
  std::optional<std::uint64_t> free_files;
  DirProblem problem = DirProblem::kNone;
  std::string problem_errno;  // the call's error where it says more: "No such file or directory"
};

// The directory's facts, whatever its state (doctor reports a missing one as a failed check):
// statfs and statvfs where the path exists, the O_DIRECT probe where it is a writable directory.
StorageDirFacts inspect_storage_dir(const std::string& dir);

// Throws UsageError naming the directory when it is missing, not a directory or not writable.
StorageDirFacts probe_storage_dir(const std::string& dir);

// Refuses `bytes` above the directory's free space, and `files` above its free inodes where it
// counts them (UsageError naming it and both figures): a full disk is refused before the first write.
void require_room(const StorageDirFacts& d, std::uint64_t bytes, std::uint64_t files = 1);

// What open(O_DIRECT)'s errno says about the file system, in words (exposed for tests: tmpfs on
// kernels before 6.6 answers EINVAL).
std::string direct_refusal_text(int err);

// The file system's name from statfs's f_type (classify_fs's name).
std::string fs_type_name(long f_type);

}  // namespace kvb
