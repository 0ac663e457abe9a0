// The host reference backend: a "device" pool and a host pool both in host memory, copied with
// memcpy (ce: one call per block, in order) or by a pool of threads (kernel: the host analogue
// of many SMs). Always built, so `kvbench dma` and its tests run anywhere; its figures are
// host memory bandwidth, never a GPU link.
#include <fmt/format.h>
#include <sys/mman.h>

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
#include "core/parallel.hpp"
#include "dma/measure.hpp"
#include "dma/transfer_backend.hpp"

namespace kvb {
namespace {

using Clock = std::chrono::steady_clock;

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeDeleter>;

// Pools are built on 2 MiB boundaries and marked for transparent huge pages: first touching a GiB
// in 4 KiB pages costs 262,144 page faults (about 2 s per GiB of pools measured on a 2-core VM,
// tests/bench BM_HostPoolSetup); 2 MiB pages need 512 of them. Where THP is "never" the advice
// is ignored and the pools are built as before.
Buffer allocate(std::uint64_t bytes, const char* what) {
  constexpr std::uint64_t kHuge = 2u << 20;
  const std::uint64_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (p == nullptr) {
    throw DeviceError(fmt::format(
        "host backend: cannot allocate {} bytes for the {} pool; expected a smaller --pool", bytes, what));
  }
  (void)::madvise(p, rounded, MADV_HUGEPAGE);
  return Buffer(static_cast<unsigned char*>(p));
}

// Faults every page in (one write per 4 KiB): the kernel zero-fills them, so writing the rest
// again, as a memset would, doubles the cost of a pool for nothing.
// Spread over the host's threads: the kernel's zeroing runs in the faulting thread.
void touch_pages(unsigned char* p, std::uint64_t bytes) {
  parallel_ranges(static_cast<std::size_t>(bytes / 4096), std::size_t{2048},
                  [p](std::size_t begin, std::size_t end) {
                    for (std::size_t page = begin; page < end; ++page) p[page * 4096] = 0;
                  });
}

void copy_serial(const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst) {
  for (const auto& op : ops) std::memcpy(dst + op.dst_offset, src + op.src_offset, op.bytes);
}

void copy_threaded(const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst,
                   int threads) {
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

// One case on the host pools: the copy lists of each direction, run by one thread (ce) or a pool
// of threads (kernel).
class HostPreparedCase final : public PreparedCase {
 public:
  HostPreparedCase(const TransferCase& c, const HostPoolSet& pools, int threads)
      : direction_(c.direction),
        seed_(c.seed),
        threads_(threads),
        host_src_(pools.host_src.get()),
        gpu_src_(pools.gpu_src.get()),
        h2d_dst_(pools.gpu_dst.get()),
        d2h_dst_(pools.host_dst.get()) {
    const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, c.seed);
    h2d_ = copy_ops(c, map, Direction::kH2D);
    d2h_ = copy_ops(c, map, Direction::kD2H);
    // Cleared before the first warm-up, so verification after the last run sees only what the
    // measured copies wrote (pools are shared across cases: stale blocks would otherwise pass).
    if (direction_ != Direction::kD2H) clear_destinations(h2d_, h2d_dst_);
    if (direction_ != Direction::kH2D) clear_destinations(d2h_, d2h_dst_);
  }

  IssueTiming issue_once() override {
    IssueTiming t;
    const auto start = Clock::now();
    if (direction_ == Direction::kH2D) {
      run(h2d_, host_src_, h2d_dst_);
    } else if (direction_ == Direction::kD2H) {
      run(d2h_, gpu_src_, d2h_dst_);
    } else {
      // Each direction's own span; the pair's figure is both directions' bytes over the union of
      // the spans (first start to last end), so thread start-up and joining stay outside it.
      Clock::time_point up_start, up_end;
      std::thread up([&] {
        up_start = Clock::now();
        run(h2d_, host_src_, h2d_dst_);
        up_end = Clock::now();
      });
      const auto down_start = Clock::now();
      run(d2h_, gpu_src_, d2h_dst_);
      const auto down_end = Clock::now();
      up.join();
      t.h2d_s = std::chrono::duration<double>(up_end - up_start).count();
      t.d2h_s = std::chrono::duration<double>(down_end - down_start).count();
      t.run.device_s =
          std::chrono::duration<double>(std::max(up_end, down_end) - std::min(up_start, down_start)).count();
      t.run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
      return t;
    }
    t.run.device_s = std::chrono::duration<double>(Clock::now() - start).count();
    t.run.wall_s = t.run.device_s;
    return t;
  }

  std::string verify() override {
    std::string bad;
    if (direction_ != Direction::kD2H) bad = verify_copies(h2d_, h2d_dst_, seed_, 1);
    if (bad.empty() && direction_ != Direction::kH2D) bad = verify_copies(d2h_, d2h_dst_, seed_, 0);
    return bad;
  }

 private:
  void run(const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst) const {
    if (threads_ == 1)
      copy_serial(ops, src, dst);
    else
      copy_threaded(ops, src, dst, threads_);
  }

  Direction direction_;
  std::uint64_t seed_;
  int threads_;
  const unsigned char* host_src_;
  const unsigned char* gpu_src_;
  unsigned char* h2d_dst_;
  unsigned char* d2h_dst_;
  std::vector<CopyOp> h2d_, d2h_;
};

// Every hardware thread running FMA chains; rates are chunks of work per second.
class HostLoad final : public ComputeLoad {
 public:
  HostLoad() : load_(hardware_threads()) {}
  double rate_alone() override {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // threads started and spinning
    return load_.rate_over(0.25);
  }
  void start() override {
    chunks_ = load_.chunks();
    start_ = Clock::now();
  }
  double stop() override {
    const double dt = std::chrono::duration<double>(Clock::now() - start_).count();
    return dt > 0 ? static_cast<double>(load_.chunks() - chunks_) / dt : 0.0;
  }
  std::string description() const override {
    return fmt::format("{} threads of dependent FMAs (every hardware thread)", load_.threads());
  }

 private:
  HostComputeLoad load_;
  std::uint64_t chunks_ = 0;
  Clock::time_point start_{};
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
  std::string do_waive(const TransferCase& c) override {
    if (c.method == Method::kCeBatch) return "the host backend has no batched copy API";
    if (c.host_mem != HostMemKind::kPinned && c.host_mem != HostMemKind::kPageable) {
      return "write-combined memory needs a GPU runtime";
    }
    return "";
  }

  std::unique_ptr<PreparedCase> do_prepare(const TransferCase& c, CaseResult& r) override {
    const auto setup_start = Clock::now();
    const HostPoolSet& pools = acquire(c);
    r.pool_setup_s = std::chrono::duration<double>(Clock::now() - setup_start).count();
    r.host_numa_node = numa_node_of(pools.host_src.get());
    const int threads = c.method == Method::kKernel ? (c.ctas > 0 ? c.ctas : hardware_threads()) : 1;
    return std::make_unique<HostPreparedCase>(c, pools, threads);
  }

  std::unique_ptr<ComputeLoad> do_compute_load() override { return std::make_unique<HostLoad>(); }

  void do_reserve(std::uint64_t gpu_bytes, std::uint64_t host_bytes) override {
    reserve_gpu_ = gpu_bytes;
    reserve_host_ = host_bytes;
  }

 private:
  const HostPoolSet& acquire(const TransferCase& c) {
    if (pools_.serves(c)) return pools_;
    pools_ = HostPoolSet{};  // free first
    // Destinations are only first-touched (their pages faulted in, outside every timed run): each
    // case clears the blocks it will write before its first copy, and verification reads only those.
    HostPoolSet s;
    s.gpu_bytes = std::max(gpu_pool_bytes(c), reserve_gpu_);
    s.host_bytes = std::max(host_pool_bytes(c), reserve_host_);
    s.seed = c.seed;
    s.numa_request = c.numa_node;
    // Pool ids: 0 = device-side, 1 = host-side.
    s.gpu_src = allocate(s.gpu_bytes, "device-side source");
    fill_pattern(s.gpu_src.get(), s.gpu_bytes, c.seed, 0);
    s.gpu_dst = allocate(s.gpu_bytes, "device-side destination");
    touch_pages(s.gpu_dst.get(), s.gpu_bytes);
    {
      // The host-side pools are allocated and first touched under --numa-node, so their pages
      // land there.
      ScopedNumaBind bind(c.numa_node, true);
      s.host_src = allocate(s.host_bytes, "host-side source");
      fill_pattern(s.host_src.get(), s.host_bytes, c.seed, 1);
      s.host_dst = allocate(s.host_bytes, "host-side destination");
      touch_pages(s.host_dst.get(), s.host_bytes);
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
