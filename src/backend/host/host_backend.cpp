// The host reference backend: a "device" pool and a host pool both in host memory, copied with
// memcpy (ce: one call per block, in order) or by a pool of threads (kernel: the host analogue
// of many SMs). Always built, so `kvbench dma` and its tests run anywhere; its figures are
// host memory bandwidth, never a GPU link.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "backend/backend_registry.hpp"
#include "backend/data_pattern.hpp"
#include "backend/host/host_compute_load.hpp"
#include "backend/verify.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/numa_binding.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {
namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeDeleter>;

Buffer allocate(std::uint64_t bytes, const char* what) {
  const std::uint64_t rounded = (bytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr) {
    throw DeviceError(fmt::format("host backend: cannot allocate {} bytes for the {} pool; expected a smaller --pool",
                                  bytes, what));
  }
  return Buffer(static_cast<unsigned char*>(p));
}

void copy_serial(const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst) {
  for (const auto& op : ops) std::memcpy(dst + op.dst_offset, src + op.src_offset, op.bytes);
}

void copy_threaded(const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst, int threads) {
  std::vector<std::thread> pool;
  const auto n = static_cast<std::size_t>(threads);
  for (std::size_t t = 0; t < n; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < ops.size(); i += n) {
        std::memcpy(dst + ops[i].dst_offset, src + ops[i].src_offset, ops[i].bytes);
      }
    });
  }
  for (auto& th : pool) th.join();
}

// The four pools a case copies between, built once and reused while large enough for the case
// and of the same seed and NUMA request (as the GPU backend's GpuPoolCache): sources hold the
// pattern and are never written, so h2d, d2h and bidir share one set.
struct HostPoolSet {
  std::uint64_t gpu_bytes = 0, host_bytes = 0, seed = 0;
  int numa_request = -1;
  Buffer gpu_src, gpu_dst, host_src, host_dst;  // "gpu" = the device-side pools, in host memory

  bool serves(const TransferCase& c) const {
    return gpu_src && seed == c.seed && numa_request == c.numa_node && gpu_bytes >= gpu_pool_bytes(c) &&
           host_bytes >= host_pool_bytes(c);
  }
};

class HostBackend final : public TransferBackend {
 public:
  explicit HostBackend(int index) {
    info_.backend = "host";
    info_.index = index;
    info_.name = host_cpu_model();
    info_.driver_version = "n/a";
    info_.runtime_version = "n/a";
    info_.link = "host memory (memcpy); not a GPU link";
    info_.timing = "std::chrono::steady_clock around the copies";
  }

 protected:
  CaseResult do_measure(const TransferCase& c, const StoppingRule& rule) override {
    CaseResult r;
    if (c.method == Method::kCeBatch) {
      r.waived = true;
      r.waive_reason = "the host backend has no batched copy API";
      return r;
    }
    if (c.host_mem != HostMemKind::kPinned && c.host_mem != HostMemKind::kPageable) {
      r.waived = true;
      r.waive_reason = "write-combined memory needs a GPU runtime";
      return r;
    }
    const int hw_threads = std::max(1u, std::thread::hardware_concurrency());
    const int threads = c.method == Method::kKernel ? (c.ctas > 0 ? c.ctas : hw_threads) : 1;
    const bool bidir = c.direction == Direction::kBidir;
    const auto setup_start = Clock::now();
    const HostPoolSet& pools = acquire(c);
    r.pool_setup_s = std::chrono::duration<double>(Clock::now() - setup_start).count();
    r.host_numa_node = numa_node_of(pools.host_src.get());
    const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, c.seed);
    const auto h2d = copy_ops(c, map, Direction::kH2D);
    const auto d2h = copy_ops(c, map, Direction::kD2H);
    const unsigned char* host_src = pools.host_src.get();
    const unsigned char* gpu_src = pools.gpu_src.get();
    unsigned char* h2d_dst = pools.gpu_dst.get();
    unsigned char* d2h_dst = pools.host_dst.get();

    auto run = [&](const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst) {
      if (threads == 1) copy_serial(ops, src, dst);
      else copy_threaded(ops, src, dst, threads);
    };
    // Cleared before the first warm-up, so verification after the last run sees only what the
    // measured copies wrote (pools are shared across cases: stale blocks would otherwise pass).
    if (c.direction != Direction::kD2H) clear_destinations(h2d, h2d_dst);
    if (c.direction != Direction::kH2D) clear_destinations(d2h, d2h_dst);
    std::vector<double> h2d_s;
    std::vector<double> d2h_s;
    auto once = [&]() {
      TimedRun t;
      const auto start = Clock::now();
      if (c.direction == Direction::kH2D) {
        run(h2d, host_src, h2d_dst);
      } else if (c.direction == Direction::kD2H) {
        run(d2h, gpu_src, d2h_dst);
      } else {
        double a = 0;
        double b = 0;
        std::thread up([&] {
          const auto s0 = Clock::now();
          run(h2d, host_src, h2d_dst);
          a = std::chrono::duration<double>(Clock::now() - s0).count();
        });
        const auto s1 = Clock::now();
        run(d2h, gpu_src, d2h_dst);
        b = std::chrono::duration<double>(Clock::now() - s1).count();
        up.join();
        h2d_s.push_back(a);
        d2h_s.push_back(b);
      }
      t.device_s = std::chrono::duration<double>(Clock::now() - start).count();
      t.wall_s = t.device_s;
      return t;
    };
    RunResult result;
    if (c.with_compute) {
      // The load's rate alone first, then over the whole timed phase while the copies compete.
      HostComputeLoad load(hw_threads);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // threads started and spinning
      r.compute_alone_per_s = load.rate_over(0.25);
      const auto c0 = load.chunks();
      const auto t0 = Clock::now();
      result = run_until_stable(once, rule);
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      r.compute_during_per_s = dt > 0 ? static_cast<double>(load.chunks() - c0) / dt : 0.0;
      r.compute_load = fmt::format("{} threads of dependent FMAs (every hardware thread)", load.threads());
    } else {
      result = run_until_stable(once, rule);
    }
    take_runs(r, std::move(result), h2d_s, d2h_s);
    // Verify what the measured runs wrote (the destinations were cleared before the first warm-up).
    std::string bad;
    if (bidir || c.direction == Direction::kH2D) bad = verify_copies(h2d, h2d_dst, c.seed, 1);
    if (bad.empty() && c.direction != Direction::kH2D) bad = verify_copies(d2h, d2h_dst, c.seed, 0);
    r.verified = bad.empty();
    r.verify_detail = bad;
    return r;
  }

  void do_reserve(std::uint64_t gpu_bytes, std::uint64_t host_bytes) override {
    reserve_gpu_ = gpu_bytes;
    reserve_host_ = host_bytes;
  }

 private:
  const HostPoolSet& acquire(const TransferCase& c) {
    if (pools_.serves(c)) return pools_;
    pools_ = HostPoolSet{};  // free first
    HostPoolSet s;
    s.gpu_bytes = std::max(gpu_pool_bytes(c), reserve_gpu_);
    s.host_bytes = std::max(host_pool_bytes(c), reserve_host_);
    s.seed = c.seed;
    s.numa_request = c.numa_node;
    // Pool ids: 0 = device-side, 1 = host-side.
    s.gpu_src = allocate(s.gpu_bytes, "device-side source");
    fill_pattern(s.gpu_src.get(), s.gpu_bytes, c.seed, 0);
    s.gpu_dst = allocate(s.gpu_bytes, "device-side destination");
    fill_zero(s.gpu_dst.get(), s.gpu_bytes);
    {
      // The host-side pools are allocated and first touched under --numa-node, so their pages
      // land there.
      ScopedNumaBind bind(c.numa_node, true);
      s.host_src = allocate(s.host_bytes, "host-side source");
      fill_pattern(s.host_src.get(), s.host_bytes, c.seed, 1);
      s.host_dst = allocate(s.host_bytes, "host-side destination");
      fill_zero(s.host_dst.get(), s.host_bytes);
    }
    pools_ = std::move(s);
    return pools_;
  }

  HostPoolSet pools_;
  std::uint64_t reserve_gpu_ = 0, reserve_host_ = 0;  // the sweep's largest pools (reserve())
};

}  // namespace

std::unique_ptr<TransferBackend> make_host_backend(int index) { return std::make_unique<HostBackend>(index); }

}  // namespace kvb
