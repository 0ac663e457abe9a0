#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/temp_file.hpp"

namespace kvb {

namespace {

using FileId = std::pair<dev_t, ino_t>;

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}

std::set<FileId>& inputs_read() {
  static std::set<FileId> ids;
  return ids;
}

// An output that is one of this run's inputs is refused before anything is written.
void refuse_input_as_output(const std::string& given) {
  struct stat st {};
  if (::stat(given.c_str(), &st) != 0) return;
  const std::lock_guard lock(inputs_mutex());
  if (inputs_read().count({st.st_dev, st.st_ino}) > 0) {
    throw UsageError(
        fmt::format("output '{}': is one of this command's input files; expected another path (the "
                    "input is left as it was)",
                    given));
  }
}

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
      if (n < 0)
        throw UsageError(
            fmt::format("output '{}': cannot read the symlink ({})", path, std::strerror(errno)));
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
    t.what = S_ISDIR(st.st_mode)    ? "is a directory"
             : S_ISSOCK(st.st_mode) ? "is a socket"
                                    : "is a block device";
    t.what += "; expected a regular file (or a character device such as /dev/null, or a FIFO)";
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
  if (::close(fd) != 0)
    throw UsageError(fmt::format("output '{}': write failed ({})", path, std::strerror(errno)));
}

}  // namespace

namespace {

// An existing file keeps its mode and owner; a new one gets 0666 less the umask, as > would.
void set_mode_and_owner(const TempFile& tmp, const std::string& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    (void)::fchmod(tmp.fd(), st.st_mode & 07777);
    if (st.st_uid != ::geteuid() || st.st_gid != ::getegid()) (void)::fchown(tmp.fd(), st.st_uid, st.st_gid);
    return;
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(tmp.fd(), 0666 & ~mask);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// A file kvbench names itself (report --save-json DIR's dma.json): a link planted there is
// replaced by the file, never followed, and only a regular file or nothing is accepted.
OutputTarget classify_implicit_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode) || S_ISREG(st.st_mode)) return t;
  t.kind = OutputKind::kRefused;
  t.what = "is not a regular file; expected a regular file or nothing at that name";
  return t;
}

OutputTarget classify(const std::string& given, LinkRule rule) {
  refuse_input_as_output(given);
  const auto target = rule == LinkRule::kFollow ? classify_output(given) : classify_implicit_output(given);
  if (target.kind == OutputKind::kRefused)
    throw UsageError(fmt::format("output '{}': {}", printable_path(given), target.what));
  return target;
}

}  // namespace

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard lock(inputs_mutex());
  inputs_read().insert({st.st_dev, st.st_ino});
}

void write_file_atomically(const std::string& given, std::string_view content, LinkRule rule) {
  const auto target = classify(given, rule);
  if (target.kind == OutputKind::kStream) {
    write_in_place(given, target.path, content);
    return;
  }
  // Followed: a symlink's target is replaced, the link kept. Not followed: the link is replaced.
  const std::string& path = target.path;
  TempFile tmp(directory_of(path), fmt::format("output '{}'", printable_path(given)));
  tmp.write(content);
  set_mode_and_owner(tmp, path);
  tmp.close();
  tmp.rename_to(path);
}

void require_writable_output(const std::string& given, LinkRule rule) {
  const auto target = classify(given, rule);
  if (target.kind == OutputKind::kStream) {
    if (::access(target.path.c_str(), W_OK) != 0) {
      throw UsageError(fmt::format("output '{}': not writable ({})", given, std::strerror(errno)));
    }
    return;
  }
  const std::string& path = target.path;
  struct stat st {};
  const std::string dir = directory_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format(
        "output '{}': the directory '{}' does not exist; expected a path in an existing directory", given,
        dir));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("output '{}': cannot create ({}); expected a writable directory", given,
                                 std::strerror(errno)));
  }
  // A name the file system refuses fails only at the final rename: refused here, before a long
  // measurement is made and lost.
  const auto slash = path.find_last_of('/');
  const auto name_length = path.size() - (slash == std::string::npos ? 0 : slash + 1);
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && name_length > static_cast<std::size_t>(name_max)) {
    throw UsageError(fmt::format("output '{}': a file name of {} bytes; expected at most {} here",
                                 printable_path(given), name_length, name_max));
  }
}

}  // namespace kvb
