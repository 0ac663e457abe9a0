#pragma once
// The one reader of node files: /proc and /sys, or a recorded tree of them (doctor --root). A
// node file is a small regular file; a FIFO would block the open or the read forever and a link to
// /dev/zero never ends, so anything else is a named problem, never a hang.
#include <cstddef>
#include <string>

namespace kvb {

// /proc/cpuinfo of a 512-thread host is about 1.5 MiB; nothing else a check reads comes near.
inline constexpr std::size_t kMaxNodeFileBytes = 4u << 20;

struct NodeFile {
  bool present = false;  // false: no such file (a missing fact, not a problem)
  std::string text;      // the whole file when it was read
  std::string problem;   // why it was not read: "is a FIFO; expected a regular file", ...
  bool ok() const { return present && problem.empty(); }
};

NodeFile read_node_file(const std::string& path, std::size_t max_bytes = kMaxNodeFileBytes);

// The first line, trailing white space dropped; "" when the file is missing or not readable.
std::string node_first_line(const std::string& path);

}  // namespace kvb
