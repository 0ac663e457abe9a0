#include "core/temp_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/path_text.hpp"

namespace kvb {

TempFile::TempFile(const std::string& dir, const std::string& what) : what_(what) {
  std::string name = (dir.empty() ? std::string(".") : dir) +
                     (dir.size() > 0 && dir.back() == '/' ? "" : "/") + ".kvb-XXXXXX";
  // mkostemp opens with O_CREAT|O_EXCL: a link planted at the name is refused, never followed.
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    throw UsageError(fmt::format("{}: cannot create a file in '{}' ({}); expected a writable directory", what,
                                 printable_path(dir), std::strerror(errno)));
  }
  path_ = name;
  slot_ = arm_temporary(path_.c_str());
}

TempFile TempFile::in_tmpdir(const std::string& what) {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
  struct stat st {};
  const bool is_dir = ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (!is_dir || ::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format(
        "{}: TMPDIR '{}' {}; expected a writable directory for temporary files (or TMPDIR unset: /tmp)", what,
        printable_path(dir), is_dir ? "is not writable" : "is not a directory"));
  }
  return TempFile(dir, what);
}

TempFile::TempFile(TempFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      slot_(std::exchange(other.slot_, -1)),
      path_(std::move(other.path_)),
      what_(std::move(other.what_)) {
  other.path_.clear();
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
  disarm_temporary(slot_);
}

void TempFile::fail(const char* step, int err) {
  throw UsageError(fmt::format("{}: {} failed ({})", what_, step, std::strerror(err)));
}

void TempFile::write(std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd_, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", errno);
    done += static_cast<std::size_t>(n);
  }
}

void TempFile::close() {
  if (fd_ < 0) return;
  const int fd = std::exchange(fd_, -1);
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    fail("flush", err);
  }
  if (::close(fd) != 0) fail("flush", errno);
}

void TempFile::rename_to(const std::string& target) {
  if (std::rename(path_.c_str(), target.c_str()) != 0) fail("rename", errno);
  path_.clear();
  disarm_temporary(std::exchange(slot_, -1));
}

}  // namespace kvb
