#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/errors.hpp"

namespace kvb {

namespace {

// What is at an output path decides how it is written.
enum class OutputKind { kAbsentOrRegular, kStream, kRefused };

struct OutputTarget {
  std::string path;  // a symlink resolved to its final target
  OutputKind kind = OutputKind::kAbsentOrRegular;
  std::string what;  // for a refusal: what was found there
};

// Follows symlinks (a dangling one names the file it would create), then classifies the target:
// a regular file or nothing is replaced atomically; a character device (/dev/null, /dev/stdout)
// or a FIFO is written in place, never replaced; a directory, socket or block device is refused.
OutputTarget classify_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(t.path.c_str(), &st) != 0) return t;  // absent: created
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      const ssize_t n = ::readlink(t.path.c_str(), buf, sizeof buf - 1);
      if (n < 0) throw UsageError(fmt::format("output '{}': cannot read the symlink ({})", path, std::strerror(errno)));
      std::string target(buf, static_cast<std::size_t>(n));
      if (!target.empty() && target.front() != '/') {
        const auto slash = t.path.find_last_of('/');
        if (slash != std::string::npos) target = t.path.substr(0, slash + 1) + target;
      }
      t.path = target;
      continue;
    }
    if (S_ISREG(st.st_mode)) return t;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      t.kind = OutputKind::kStream;
      return t;
    }
    t.kind = OutputKind::kRefused;
    t.what = S_ISDIR(st.st_mode) ? "is a directory" : S_ISSOCK(st.st_mode) ? "is a socket" : "is a block device";
    return t;
  }
  throw UsageError(fmt::format("output '{}': too many levels of symlinks; expected a file path", path));
}

void write_all(int fd, std::string_view content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw UsageError(fmt::format("output '{}': write failed ({})", path, std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

// A device or FIFO: opened and written as it is (as the shell's > would), never renamed over.
void write_in_place(const std::string& path, const std::string& target, std::string_view content) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError(fmt::format("output '{}': cannot open ({})", path, std::strerror(errno)));
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw UsageError(fmt::format("output '{}': write failed ({})", path, std::strerror(errno)));
}

}  // namespace

void write_file_atomically(const std::string& given, std::string_view content) {
  const auto target = classify_output(given);
  if (target.kind == OutputKind::kRefused) {
    throw UsageError(fmt::format("output '{}': {}; expected a regular file, a device or a FIFO", given, target.what));
  }
  if (target.kind == OutputKind::kStream) {
    write_in_place(given, target.path, content);
    return;
  }
  // A symlink's target is replaced, the link kept.
  const std::string& path = target.path;
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw UsageError(fmt::format("output '{}': cannot create ({}); expected a writable directory", given,
                                 std::strerror(errno)));
  }
  try {
    write_all(fd, content, given);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_err = errno;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    const int err = synced ? errno : sync_err;
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("output '{}': flush failed ({})", given, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("output '{}': rename failed ({})", given, std::strerror(err)));
  }
}

void require_writable_output(const std::string& given) {
  const auto target = classify_output(given);
  if (target.kind == OutputKind::kRefused) {
    throw UsageError(fmt::format("output '{}': {}; expected a regular file, a device or a FIFO", given, target.what));
  }
  if (target.kind == OutputKind::kStream) {
    if (::access(target.path.c_str(), W_OK) != 0) {
      throw UsageError(fmt::format("output '{}': not writable ({})", given, std::strerror(errno)));
    }
    return;
  }
  const std::string& path = target.path;
  struct stat st {};
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("output '{}': the directory '{}' does not exist; expected a path in an existing directory",
                                 given, dir));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("output '{}': cannot create ({}); expected a writable directory", given,
                                 std::strerror(errno)));
  }
}

}  // namespace kvb
