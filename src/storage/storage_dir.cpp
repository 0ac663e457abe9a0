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
  // Magic numbers from linux/magic.h (and xfs_sb.h, zfs, lustre, gpfs for the usual KV tiers).
  switch (static_cast<unsigned long>(f_type) & 0xffffffffUL) {
    case 0xEF53UL:
      return "ext4";
    case 0x58465342UL:
      return "xfs";
    case 0x01021994UL:
      return "tmpfs";
    case 0x9123683EUL:
      return "btrfs";
    case 0x6969UL:
      return "nfs";
    case 0x65735546UL:
      return "fuse";
    case 0x794C7630UL:
      return "overlayfs";
    case 0x2FC12FC1UL:
      return "zfs";
    case 0x0BD00BD0UL:
      return "lustre";
    case 0x47504653UL:
      return "gpfs";
    case 0x00C36400UL:
      return "ceph";
    default:
      return fmt::format("0x{:x}", static_cast<unsigned long>(f_type));
  }
}

std::string direct_refusal_text(int err) {
  if (err == EINVAL) return "open(O_DIRECT) failed: EINVAL (the file system refuses O_DIRECT, as tmpfs does)";
  return fmt::format("open(O_DIRECT) failed: {}", std::strerror(err));
}

namespace {

void require_writable_dir(const std::string& dir) {
  struct stat st {};
  const auto name = printable_path(dir);
  if (::stat(dir.c_str(), &st) != 0)
    throw UsageError(fmt::format("--dir {}: {}; expected an existing directory", name, std::strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    throw UsageError(fmt::format("--dir {}: not a directory; expected a directory", name));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(
        fmt::format("--dir {}: not writable by this user ({}); expected a directory kvbench may "
                    "create files in",
                    name, std::strerror(errno)));
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
  if (err == EEXIST || err == EACCES) {
    throw UsageError(
        fmt::format("--dir {}: cannot create a file there ({})", printable_path(d.path), std::strerror(err)));
  }
  d.direct_refusal = direct_refusal_text(err);
  ::unlink(probe.c_str());  // a file system may create the name before refusing the flag
}

}  // namespace

StorageDirFacts probe_storage_dir(const std::string& dir) {
  require_writable_dir(dir);
  StorageDirFacts d;
  d.path = dir;
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0) d.fs_type = fs_type_name(static_cast<long>(fs.f_type));
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0)
    d.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  probe_direct(d);
  return d;
}

void require_room(const StorageDirFacts& d, std::uint64_t bytes) {
  if (bytes > d.free_bytes) {
    throw UsageError(fmt::format("--size {}: more than the {} free in --dir {}; expected a smaller --size",
                                 format_bytes_binary(static_cast<double>(bytes)),
                                 format_bytes_binary(static_cast<double>(d.free_bytes)),
                                 printable_path(d.path)));
  }
}

}  // namespace kvb
