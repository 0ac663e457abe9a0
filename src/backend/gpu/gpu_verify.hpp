#pragma once
// Verification on the device: a kernel compares every destination word of a case's copies with
// the source pattern (data_pattern.hpp's hash, computed on the device), so a 1 GiB transfer is
// checked in milliseconds instead of being read back and hashed by one host thread. It reads
// device memory, or pinned / write-combined host memory through its mapped address (a CPU
// reading write-combined memory is uncached and slow). Included by gpu_backend.cpp only.
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/data_pattern.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"
#include "backend/verify.hpp"
#include "dma/transfer_case.hpp"
#include "gpu_alias.hpp"
#include "gpu_kernels.hpp"

namespace kvb {
namespace {

// The copy table on the device, uploaded once per case and direction.
class DeviceCopyTable {
 public:
  explicit DeviceCopyTable(const std::vector<CopyOp>& ops) : n_(static_cast<int>(ops.size())) {
    std::vector<DevCopyOp> dev;
    dev.reserve(ops.size());
    for (const auto& o : ops) dev.push_back(DevCopyOp{o.src_offset, o.dst_offset, o.bytes});
    buffer_ = std::make_unique<GpuBuffer>(GpuBuffer::Kind::kDevice, dev.size() * sizeof(DevCopyOp) + 8);
    check(gpuMemcpy(buffer_->get(), dev.data(), dev.size() * sizeof(DevCopyOp), gpuMemcpyDefault),
          "uploading the copy list");
  }
  const DevCopyOp* ops() const { return reinterpret_cast<const DevCopyOp*>(buffer_->get()); }
  int size() const { return n_; }

 private:
  std::unique_ptr<GpuBuffer> buffer_;
  int n_;
};

// Checks on `stream` that the copies `ops` (table `table`) landed in `dst`; returns "" or the first
// mismatch (re-read on the host for its byte offset). Work queued on `stream` before it is
// finished first.
inline std::string verify_on_device(const std::vector<CopyOp>& ops, const DeviceCopyTable& table,
                                    const GpuBuffer& dst, std::uint64_t seed, std::uint64_t src_pool,
                                    int grid, gpuStream_t stream) {
  GpuBuffer flag(GpuBuffer::Kind::kDevice, sizeof(unsigned long long));
  check(gpuMemsetAsync(flag.get(), 0xff, sizeof(unsigned long long), stream),
        "clearing the verification flag");
  verify_blocks_kernel<<<grid, 256, 0, stream>>>(dst.device_view(), table.ops(), table.size(), seed, src_pool,
                                                 reinterpret_cast<unsigned long long*>(flag.get()));
  check(gpuGetLastError(), "launching the verification kernel");
  unsigned long long first_bad = ULLONG_MAX;
  check(gpuMemcpyAsync(&first_bad, flag.get(), sizeof first_bad, gpuMemcpyDefault, stream),
        "reading the verdict");
  check(gpuStreamSynchronize(stream), "verification kernel");
  if (first_bad == ULLONG_MAX) return "";
  if (first_bad >= ops.size()) return "the verification kernel reported a copy index out of range";
  // Read the failing block back and describe it as the host check would.
  const auto& o = ops[static_cast<std::size_t>(first_bad)];
  std::vector<unsigned char> block(static_cast<std::size_t>(o.bytes));
  check(gpuMemcpy(block.data(), dst.get() + o.dst_offset, block.size(), gpuMemcpyDefault),
        "reading back a bad copy");
  const std::string detail = verify_copies({CopyOp{o.src_offset, 0, o.bytes}}, block.data(), seed, src_pool);
  return "copy " + std::to_string(first_bad) + " (src offset " + std::to_string(o.src_offset) +
         ", dst offset " + std::to_string(o.dst_offset) +
         "): " + (detail.empty() ? std::string("differs on the device") : detail.substr(detail.find("byte")));
}

}  // namespace
}  // namespace kvb
