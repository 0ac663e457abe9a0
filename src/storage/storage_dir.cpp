#include "storage/storage_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"

namespace kvb {

std::string fs_type_name(long f_type) {
  return classify_fs(static_cast<std::uint64_t>(static_cast<unsigned long>(f_type))).name;
}

std::string direct_refusal_text(int err) {
  if (err == EINVAL) return "open(O_DIRECT) failed: EINVAL (the file system refuses O_DIRECT, as tmpfs does)";
  return fmt::format("open(O_DIRECT) failed: {}", std::strerror(err));
}

namespace {

// The directory's state as stat and access see it; the errno's words where it says more.
void check_dir_state(StorageDirFacts& d) {
  struct stat st {};
  if (::stat(d.path.c_str(), &st) != 0) {
    d.problem = DirProblem::kMissing;
    d.problem_errno = std::strerror(errno);
  } else if (!S_ISDIR(st.st_mode)) {
    d.problem = DirProblem::kNotDirectory;
  } else if (::access(d.path.c_str(), W_OK | X_OK) != 0) {
    d.problem = DirProblem::kNotWritable;
    d.problem_errno = std::strerror(errno);
  }
}

// Creates and removes one small file with O_DIRECT: the only reliable answer is the kernel's.
void probe_direct(StorageDirFacts& d) {
  const auto probe = fmt::format("{}/.kvbench-odirect-probe-{}", d.path, ::getpid());
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    d.direct_supported = true;
    ::close(fd);
    ::unlink(probe.c_str());
    return;
  }
  const int err = errno;
  // ENOENT: a directory that makes no new names (/proc); ENOSPC, EDQUOT: no room for one more file.
  if (err == EEXIST || err == EACCES || err == EROFS || err == EPERM || err == ENOENT || err == ENOSPC ||
      err == EDQUOT) {
    d.problem = DirProblem::kCannotCreate;
    d.problem_errno = std::strerror(err);
    return;
  }
  d.direct_refusal = direct_refusal_text(err);
  ::unlink(probe.c_str());  // a file system may create the name before refusing the flag
}

}  // namespace

StorageDirFacts inspect_storage_dir(const std::string& dir) {
  StorageDirFacts d;
  d.path = dir;
  check_dir_state(d);
  if (d.problem == DirProblem::kMissing) return d;
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0) {
    const auto type = classify_fs(static_cast<std::uint64_t>(fs.f_type));
    d.fs_type = type.name;
    d.fs_magic = type.magic;
    d.fs_kind = type.kind;
  }
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0) {
    d.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    d.total_bytes = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    if (vfs.f_files > 0) d.free_files = static_cast<std::uint64_t>(vfs.f_favail);
  }
  if (d.problem == DirProblem::kNone) probe_direct(d);
  return d;
}

StorageDirFacts probe_storage_dir(const std::string& dir) {
  auto d = inspect_storage_dir(dir);
  const auto name = printable_path(dir);
  switch (d.problem) {
    case DirProblem::kNone:
      return d;
    case DirProblem::kMissing:
      throw UsageError(fmt::format("--dir {}: {}; expected an existing directory", name, d.problem_errno));
    case DirProblem::kNotDirectory:
      throw UsageError(fmt::format("--dir {}: not a directory; expected a directory", name));
    case DirProblem::kNotWritable:
      throw UsageError(
          fmt::format("--dir {}: not writable by this user ({}); expected a directory kvbench may "
                      "create files in",
                      name, d.problem_errno));
    case DirProblem::kCannotCreate:
      throw UsageError(fmt::format(
          "--dir {}: cannot create a file there ({}); expected a directory kvbench may create files in", name,
          d.problem_errno));
  }
  return d;
}

void require_room(const StorageDirFacts& d, std::uint64_t bytes, std::uint64_t files) {
  if (bytes > d.free_bytes) {
    throw UsageError(fmt::format("--size {}: more than the {} free in --dir {}; expected a smaller --size",
                                 format_bytes_binary(static_cast<double>(bytes)),
                                 format_bytes_binary(static_cast<double>(d.free_bytes)),
                                 printable_path(d.path)));
  }
  if (d.free_files && files > *d.free_files) {
    throw UsageError(fmt::format(
        "--dir {}: a case writes {} files but its file system has {} free inodes; expected a larger --chunk, "
        "a smaller --size or --layout per-rank-file",
        printable_path(d.path), files, *d.free_files));
  }
}

}  // namespace kvb
