#include "storage/host_buffer.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/units.hpp"

namespace kvb {

namespace {

std::string memlock_limit_text() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return "unknown";
  if (rl.rlim_cur == RLIM_INFINITY) return "unlimited";
  return format_bytes_binary(static_cast<double>(rl.rlim_cur));
}

}  // namespace

HostBuffer::HostBuffer(std::uint64_t bytes) : bytes_(bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw DeviceError(fmt::format("storage: cannot map a host buffer of {} ({})",
                                  format_bytes_binary(static_cast<double>(bytes)), std::strerror(errno)));
  }
  data_ = static_cast<std::uint8_t*>(p);
  if (::mlock(p, bytes) == 0) {
    locked_ = true;
  } else {
    lock_refusal_ =
        fmt::format("mlock failed: {} (RLIMIT_MEMLOCK {})", std::strerror(errno), memlock_limit_text());
  }
}

HostBuffer::~HostBuffer() {
  if (locked_) ::munlock(data_, bytes_);
  ::munmap(data_, bytes_);
}

}  // namespace kvb
