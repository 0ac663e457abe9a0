#pragma once
// The host memory chunks move between: page-aligned (O_DIRECT needs it), and locked with mlock
// where the limit allows, as a CPU tier's pinned pool is (no GPU here: pinned means page-locked).
#include <cstddef>
#include <cstdint>
#include <string>

namespace kvb {

class HostBuffer {
 public:
  explicit HostBuffer(std::uint64_t bytes);  // DeviceError when the memory cannot be mapped
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return bytes_; }
  bool locked() const { return locked_; }
  const std::string& lock_refusal() const { return lock_refusal_; }  // why not locked

 private:
  std::uint8_t* data_ = nullptr;
  std::uint64_t bytes_ = 0;
  bool locked_ = false;
  std::string lock_refusal_;
};

}  // namespace kvb
