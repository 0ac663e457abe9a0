#pragma once
// The four block pools a GPU case copies between, kept across cases. Source pools hold the
// verification pattern and are never written; destination pools take the copies, so h2d, d2h and
// bidir can share one set. Allocating, pinning and filling two 8 GiB pools per case took longer
// than measuring it (a 2 MiB sweep spent most of its time in set-up), so a set is built once, at
// the sweep's largest size (reserve()), and reused while it is large enough and of the same host
// memory kind, NUMA request and seed (nvbandwidth also allocates once). Included by
// gpu_backend.cpp only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backend/data_pattern.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"
#include "core/numa_binding.hpp"
#include "dma/transfer_case.hpp"
#include "gpu_alias.hpp"

namespace kvb {
namespace {

// Pattern pool ids (data_pattern.hpp): what verification expects to find after a copy.
constexpr std::uint64_t kGpuPatternPool = 0;
constexpr std::uint64_t kHostPatternPool = 1;

struct GpuPoolSet {
  GpuBuffer::Kind host_kind = GpuBuffer::Kind::kPinned;
  int numa_request = -1;  // --numa-node as given (-1: the GPU's node, best effort)
  std::uint64_t seed = 0;
  std::unique_ptr<GpuBuffer> gpu_src, gpu_dst, host_src, host_dst;
  int host_numa_node = -1;  // where the host pages landed, read back

  bool serves(const TransferCase& c, GpuBuffer::Kind kind) const {
    return host_kind == kind && numa_request == c.numa_node && seed == c.seed &&
           gpu_src->bytes() >= gpu_pool_bytes(c) && host_src->bytes() >= host_pool_bytes(c);
  }
};

class GpuPoolCache {
 public:
  // The sweep's largest pools: a set is built at least this large, so it is built once.
  void reserve(std::uint64_t gpu_bytes, std::uint64_t host_bytes) {
    reserve_gpu_ = gpu_bytes;
    reserve_host_ = host_bytes;
  }

  // The pools for case `c`, building a new set (after freeing the old one) when needed.
  GpuPoolSet& acquire(const TransferCase& c, GpuBuffer::Kind host_kind, int gpu_numa_node) {
    if (set_ && set_->serves(c, host_kind)) return *set_;
    set_.reset();  // free first: two sets of large pools may not fit together
    auto s = std::make_unique<GpuPoolSet>();
    s->host_kind = host_kind;
    s->numa_request = c.numa_node;
    s->seed = c.seed;
    const std::uint64_t gpu_bytes = std::max(gpu_pool_bytes(c), reserve_gpu_);
    const std::uint64_t host_bytes = std::max(host_pool_bytes(c), reserve_host_);
    s->gpu_src = std::make_unique<GpuBuffer>(GpuBuffer::Kind::kDevice, gpu_bytes);
    s->gpu_dst = std::make_unique<GpuBuffer>(GpuBuffer::Kind::kDevice, gpu_bytes);
    {
      // Host pools are allocated (pinning places the pages) and first touched on --numa-node, by
      // default the GPU's own node from sysfs (skipped quietly when that node cannot be bound).
      ScopedNumaBind bind(c.numa_node >= 0 ? c.numa_node : gpu_numa_node, c.numa_node >= 0);
      s->host_src = std::make_unique<GpuBuffer>(host_kind, host_bytes);
      fill_pattern(s->host_src->get(), host_bytes, c.seed, kHostPatternPool);
      s->host_dst = std::make_unique<GpuBuffer>(host_kind, host_bytes);
      fill_zero(s->host_dst->get(), host_bytes);
    }
    s->host_numa_node = numa_node_of(s->host_src->get());
    upload_pattern(*s->gpu_src, c.seed);
    check(gpuMemset(s->gpu_dst->get(), 0, static_cast<std::size_t>(gpu_bytes)), "clearing the device pool");
    // The uploads ran on the legacy stream, which the non-blocking copy streams do not wait for
    // (a pageable upload may still be in flight when gpuMemcpy returns).
    check(gpuDeviceSynchronize(), "finishing the pool set-up");
    set_ = std::move(s);
    return *set_;
  }

 private:
  // In 256 MiB pieces: an 8 GiB staging vector would double the host memory the set-up needs.
  static void upload_pattern(GpuBuffer& pool, std::uint64_t seed) {
    constexpr std::uint64_t kPiece = 256ULL << 20;
    std::vector<unsigned char> staging(static_cast<std::size_t>(std::min(kPiece, pool.bytes())));
    for (std::uint64_t at = 0; at < pool.bytes(); at += kPiece) {
      const std::uint64_t n = std::min(kPiece, pool.bytes() - at);
      fill_pattern(staging.data(), n, seed, kGpuPatternPool, at);
      check(gpuMemcpy(pool.get() + at, staging.data(), static_cast<std::size_t>(n), gpuMemcpyDefault),
            "filling the device pool");
    }
  }

  std::unique_ptr<GpuPoolSet> set_;
  std::uint64_t reserve_gpu_ = 0, reserve_host_ = 0;
};

}  // namespace
}  // namespace kvb
