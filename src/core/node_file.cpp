#include "core/node_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kvb {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

// Reads at most max_bytes + 1 bytes, so an endless file stops at the cap.
void read_capped(int fd, std::size_t max_bytes, NodeFile& f) {
  char chunk[1 << 14];
  while (f.text.size() <= max_bytes) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      f.problem = fmt::format("cannot read ({})", std::strerror(errno));
      return;
    }
    if (n == 0) return;
    f.text.append(chunk, static_cast<std::size_t>(n));
  }
  f.problem = fmt::format("larger than {} KiB; expected a kernel file", max_bytes >> 10);
}

}  // namespace

NodeFile read_node_file(const std::string& path, std::size_t max_bytes) {
  NodeFile f;
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return f;
    f.present = true;
    f.problem = fmt::format("cannot open ({})", std::strerror(errno));
    return f;
  }
  f.present = true;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    f.problem = fmt::format("cannot read ({})", std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    f.problem = fmt::format("is {}; expected a regular file", kind_of(st.st_mode));
  } else {
    read_capped(fd, max_bytes, f);
  }
  ::close(fd);
  if (!f.problem.empty()) f.text.clear();
  return f;
}

std::string node_first_line(const std::string& path) {
  const auto f = read_node_file(path);
  if (!f.ok()) return "";
  auto line = f.text.substr(0, f.text.find('\n'));
  const auto end = line.find_last_not_of(" \t\r");
  return end == std::string::npos ? std::string() : line.substr(0, end + 1);
}

}  // namespace kvb
