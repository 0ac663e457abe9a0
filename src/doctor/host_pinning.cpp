#include "doctor/host_pinning.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace kvb {

PinningMeasurement measure_host_pinning(double bytes, bool lock) {
  PinningMeasurement m;
  m.how = lock ? "mmap + first touch + mlock (host stand-in for cudaHostRegister)"
               : "mmap + first touch (mlock skipped: RLIMIT_MEMLOCK is below the test size)";
  m.bytes = bytes;
  const auto size = static_cast<std::size_t>(bytes);
  const auto start = std::chrono::steady_clock::now();
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    m.error = std::string("mmap: ") + std::strerror(errno);
    return m;
  }
  std::memset(p, 1, size);  // first touch: the kernel allocates every page
  if (lock && ::mlock(p, size) != 0) {
    m.error = std::string("mlock: ") + std::strerror(errno) + " (RLIMIT_MEMLOCK below the test size?)";
    ::munmap(p, size);
    return m;
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (lock) ::munlock(p, size);
  ::munmap(p, size);
  return m;
}

}  // namespace kvb
