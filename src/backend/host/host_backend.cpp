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

#include "backend/data_pattern.hpp"
#include "backend/host/host_compute_load.hpp"
#include "backend/transfer_backend.hpp"
#include "backend/verify.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/numa_binding.hpp"

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

class HostBackend final : public TransferBackend {
 public:
  HostBackend() {
    info_.backend = "host";
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
    const auto gpu_bytes = gpu_pool_bytes(c);
    const auto host_bytes = host_pool_bytes(c);
    const bool bidir = c.direction == Direction::kBidir;
    Buffer gpu = allocate(gpu_bytes, "device-side");
    // Pool ids: 0 = device-side, 1 = host-side.
    fill_pattern(gpu.get(), gpu_bytes, c.seed, 0);
    // bidir needs disjoint destinations: the h2d copy writes a second device-side pool.
    Buffer gpu2 = bidir ? allocate(gpu_bytes, "second device-side") : Buffer();
    // The host-side pools are allocated and first touched under --numa-node, so their pages
    // land there; bidir's d2h copies write a second host pool.
    Buffer host, host2;
    {
      ScopedNumaBind bind(c.numa_node, true);
      host = allocate(host_bytes, "host-side");
      fill_pattern(host.get(), host_bytes, c.seed, 1);
      if (bidir) {
        host2 = allocate(host_bytes, "second host-side");
        std::memset(host2.get(), 0, host_bytes);
      }
    }
    r.host_numa_node = numa_node_of(host.get());
    const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, c.seed);
    const auto h2d = copy_ops(c, map, Direction::kH2D);
    const auto d2h = copy_ops(c, map, Direction::kD2H);
    unsigned char* h2d_dst = bidir ? gpu2.get() : gpu.get();
    unsigned char* d2h_dst = bidir ? host2.get() : host.get();

    auto run = [&](const std::vector<CopyOp>& ops, const unsigned char* src, unsigned char* dst) {
      if (threads == 1) copy_serial(ops, src, dst);
      else copy_threaded(ops, src, dst, threads);
    };
    std::vector<double> h2d_s;
    std::vector<double> d2h_s;
    auto once = [&]() {
      TimedRun t;
      const auto start = Clock::now();
      if (c.direction == Direction::kH2D) {
        run(h2d, host.get(), h2d_dst);
      } else if (c.direction == Direction::kD2H) {
        run(d2h, gpu.get(), d2h_dst);
      } else {
        double a = 0;
        double b = 0;
        std::thread up([&] {
          const auto s0 = Clock::now();
          run(h2d, host.get(), h2d_dst);
          a = std::chrono::duration<double>(Clock::now() - s0).count();
        });
        const auto s1 = Clock::now();
        run(d2h, gpu.get(), d2h_dst);
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
    r.runs = std::move(result.runs);
    r.converged = result.converged;
    // Keep only the timed runs' per-direction spans (the warm-ups come first).
    const auto timed = r.runs.size();
    if (h2d_s.size() >= timed) {
      r.h2d_s.assign(h2d_s.end() - static_cast<std::ptrdiff_t>(timed), h2d_s.end());
      r.d2h_s.assign(d2h_s.end() - static_cast<std::ptrdiff_t>(timed), d2h_s.end());
    }
    // Verify: clear the destinations, copy once more, compare with the source pattern.
    std::string bad;
    if (c.direction != Direction::kD2H) {
      std::memset(h2d_dst, 0, gpu_bytes);
      run(h2d, host.get(), h2d_dst);
      bad = verify_copies(h2d, h2d_dst, c.seed, 1);
    }
    if (bad.empty() && c.direction != Direction::kH2D) {
      std::memset(d2h_dst, 0, host_bytes);
      run(d2h, gpu.get(), d2h_dst);
      bad = verify_copies(d2h, d2h_dst, c.seed, 0);
    }
    r.verified = bad.empty();
    r.verify_detail = bad;
    return r;
  }
};

}  // namespace

std::unique_ptr<TransferBackend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace kvb
