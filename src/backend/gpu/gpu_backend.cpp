// The CUDA and HIP transfer backend (one source; see gpu_alias.hpp). Device pools live in GPU
// memory, host pools in pinned (mapped), pageable or write-combined memory. Methods:
//   ce        one gpuMemcpyAsync per block (or per layer fragment), on the copy engines
//   ce-batch  one batched copy call for all blocks (gpu_batch_copy.hpp), waived where absent
//   kernel    an SM gather/scatter kernel with 16-byte loads and stores over mapped host memory
// Durations come from device events around each transfer; wall time includes submission.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/device_link.hpp"
#include "backend/gpu/gpu_batch_copy.hpp"
#include "backend/gpu/gpu_buffer.hpp"
#include "backend/gpu/gpu_check.hpp"
#include "backend/gpu/gpu_compute_load.hpp"
#include "backend/gpu/gpu_pinning.hpp"
#include "backend/gpu/gpu_pools.hpp"
#include "backend/gpu/gpu_stream.hpp"
#include "backend/gpu/gpu_verify.hpp"
#include "backend/verify.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "dma/measure.hpp"
#include "dma/sysfs_link.hpp"
#include "dma/transfer_backend.hpp"
#include "gpu_alias.hpp"
#include "gpu_kernels.hpp"

namespace kvb {
namespace {

// One direction of a case, ready to issue.
struct Plan {
  std::vector<CopyOp> ops;
  const GpuBuffer* src = nullptr;
  GpuBuffer* dst = nullptr;
  std::unique_ptr<DeviceCopyTable> table;   // the copy list on the device (copy kernel, verification)
  const unsigned char* src_view = nullptr;  // kernel method: the pools as the kernel sees them
  unsigned char* dst_view = nullptr;
  std::vector<void*> dsts;  // ce-batch
  std::vector<const void*> srcs;
  std::vector<std::size_t> sizes;
};

class GpuBackend final : public TransferBackend {
 public:
  explicit GpuBackend(int device) : device_(device) {
    const int count = device_count();
    if (device < 0 || device >= count) {
      // A device this machine lacks is a device error (exit 3), like a missing GPU.
      throw DeviceError("--device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                        " " + KVB_GPU_RUNTIME + " device" + (count == 1 ? "" : "s") + "; expected 0 to " +
                        std::to_string(count - 1) + " or all");
    }
    check(gpuSetDevice(device), "selecting the device");
    gpuDeviceProp prop{};
    check(gpuGetDeviceProperties(&prop, device), "reading device properties");
    sm_count_ = prop.multiProcessorCount;
    int driver = 0;
    int runtime = 0;
    (void)gpuDriverGetVersion(&driver);
    (void)gpuRuntimeGetVersion(&runtime);
    char bus[32] = {};
    (void)gpuDeviceGetPCIBusId(bus, sizeof bus, device);
    info_.backend = KVB_GPU_RUNTIME;
    info_.index = device;
    info_.name = prop.name;
    // The kernel driver as nvidia-smi / amd-smi name it; the runtime's driver query is the API
    // version it supports (13000 -> "13.0"), which operators do not call the driver.
    info_.driver_api_version = format_runtime_version(KVB_GPU_RUNTIME, driver);
    info_.driver_version = gpu_kernel_driver_version(KVB_GPU_RUNTIME);
    if (info_.driver_version.empty()) info_.driver_version = "unknown (API " + info_.driver_api_version + ")";
    info_.runtime_version = format_runtime_version(KVB_GPU_RUNTIME, runtime);
    info_.pci_bus_id = bus;
    info_.numa_node = read_numa_node(info_.pci_bus_id);
    const auto link = resolve_device_link(info_.name, read_pcie_link(info_.pci_bus_id));
    info_.link = link.description;
    info_.link_ceiling_gbps = link.ceiling_gbps;
    info_.timing =
        std::string(KVB_GPU_RUNTIME) + " events around each transfer; wall time includes submission";
#if defined(KVBENCH_HIP)
    // ROCm copies host<->device with SDMA engines unless HSA_ENABLE_SDMA=0 makes it use blit
    // kernels on the SMs (CUs): a different copy path, so the setting travels with the results.
    if (const char* sdma = std::getenv("HSA_ENABLE_SDMA")) {
      info_.environment.push_back(std::string("HSA_ENABLE_SDMA=") + sdma);
    }
#endif
  }

  std::vector<PinningTiming> measure_pinning(std::uint64_t bytes, const std::string& shm_dir) override {
    check(gpuSetDevice(device_), "selecting the device");
    return measure_gpu_pinning(bytes, shm_dir);
  }

  static int device_count() {
    int count = 0;
    const gpuError_t err = gpuGetDeviceCount(&count);
    if (err != gpuSuccess || count == 0) {
      // Without a GPU the CUDA runtime says "driver version is insufficient", which reads as "upgrade
      // the driver": where no kernel driver is loaded at all, say that there is no GPU instead.
      const bool no_driver = gpu_kernel_driver_version(KVB_GPU_RUNTIME).empty();
      const std::string why = err == gpuSuccess ? "device count 0"
                              : no_driver       ? std::string("no ") +
                                                (std::string(KVB_GPU_RUNTIME) == "cuda" ? "NVIDIA" : "AMD") +
                                                " GPU driver is loaded: no GPU on this machine"
                                          : gpuGetErrorString(err);
      throw DeviceError(std::string("no ") + KVB_GPU_RUNTIME + " device (" + why + ")");
    }
    return count;
  }

 protected:
  std::string do_waive(const TransferCase& c) override {
    if (c.method == Method::kCeBatch && !kHaveBatchCopy) {
      return std::string("this build's ") + KVB_GPU_RUNTIME +
             " runtime has no batched copy API (CUDA >= 12.8, HIP >= 7)";
    }
    if (c.method == Method::kKernel && c.host_mem == HostMemKind::kPageable) {
      return "the copy kernel needs mapped (pinned) host memory";
    }
    return "";
  }

  std::unique_ptr<PreparedCase> do_prepare(const TransferCase& c, CaseResult& r) override {
    check(gpuSetDevice(device_), "selecting the device");
    const auto host_kind = c.host_mem == HostMemKind::kPinned     ? GpuBuffer::Kind::kPinned
                           : c.host_mem == HostMemKind::kPageable ? GpuBuffer::Kind::kPageable
                                                                  : GpuBuffer::Kind::kWriteCombined;
    const auto setup_start = std::chrono::steady_clock::now();
    GpuPoolSet& pools = pools_.acquire(c, host_kind, info_.numa_node);
    r.pool_setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    r.host_numa_node = pools.host_numa_node;
    const auto map = make_block_map(c.blocks, c.gpu_pool_blocks, c.host_pool_blocks, c.seed);
    // h2d first, then d2h: a bidir case's spans are read in this order.
    std::vector<Plan> plans;
    if (c.direction != Direction::kD2H) {
      plans.push_back(Plan{copy_ops(c, map, Direction::kH2D), pools.host_src.get(), pools.gpu_dst.get()});
    }
    if (c.direction != Direction::kH2D) {
      plans.push_back(Plan{copy_ops(c, map, Direction::kD2H), pools.gpu_src.get(), pools.host_dst.get()});
    }
    for (auto& p : plans) prepare(c, p);
    // The copy-list uploads ran on the legacy stream, which the non-blocking copy streams do not
    // wait for.
    check(gpuDeviceSynchronize(), "finishing the set-up copies");
    // Streams and events live as long as the backend: created once, not per case.
    while (streams_.size() < plans.size()) streams_.push_back(std::make_unique<StreamAndEvents>());
    if (c.method == Method::kCeBatch) {
      // Whether the driver takes the batched API does not change: asked once per backend (a
      // probe batch is a whole extra transfer).
      if (!batch_probed_) {
        batch_refusal_ = batch_copy_refused(plans.front(), streams_.front()->stream);
        batch_probed_ = true;
      }
      if (!batch_refusal_.empty()) {
        r.waived = true;
        r.waive_reason = batch_refusal_;
        return nullptr;
      }
    }
    // Verification checks what the measured runs wrote: the destinations are cleared before the
    // first warm-up and compared with the pattern after the last run, so a copy that did nothing
    // fails, and no extra verification transfer is needed (it cost a third of a case's time).
    clear_destinations_of(plans, streams_);
    return std::make_unique<Prepared>(*this, c, std::move(plans));
  }

  std::unique_ptr<ComputeLoad> do_compute_load() override {
    return std::make_unique<Load>(device_, sm_count_);
  }

  // Refuses pools the device cannot hold before anything is allocated (a source and a
  // destination pool on the device), then remembers the sweep's largest.
  void do_reserve(std::uint64_t gpu_bytes, std::uint64_t host_bytes) override {
    check(gpuSetDevice(device_), "selecting the device");
    std::size_t free_bytes = 0, total_bytes = 0;
    check(gpuMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
    if (2.0 * static_cast<double>(gpu_bytes) > 0.95 * static_cast<double>(free_bytes)) {
      throw UsageError("--pool: the device pools need 2 x " + std::to_string(gpu_bytes >> 20) +
                       " MiB but device " + std::to_string(device_) + " has " +
                       std::to_string(free_bytes >> 20) + " MiB free; expected a smaller --pool");
    }
    pools_.reserve(gpu_bytes, host_bytes);
  }

 private:
  // One case ready to issue: its copy plans (h2d first), on the backend's streams.
  class Prepared final : public PreparedCase {
   public:
    Prepared(GpuBackend& backend, const TransferCase& c, std::vector<Plan> plans)
        : backend_(backend), case_(c), plans_(std::move(plans)) {}

    IssueTiming issue_once() override {
      const auto& streams = backend_.streams_;
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < plans_.size(); ++i) {
        check(gpuEventRecord(streams[i]->start, streams[i]->stream), "event record");
      }
      if (case_.direction == Direction::kBidir && case_.method == Method::kCe) {
        issue_interleaved(plans_[0], streams[0]->stream, plans_[1], streams[1]->stream);
      } else {
        for (std::size_t i = 0; i < plans_.size(); ++i) backend_.issue(case_, plans_[i], streams[i]->stream);
      }
      for (std::size_t i = 0; i < plans_.size(); ++i) {
        check(gpuEventRecord(streams[i]->stop, streams[i]->stream), "event record");
      }
      for (std::size_t i = 0; i < plans_.size(); ++i)
        check(gpuStreamSynchronize(streams[i]->stream), "waiting for the copies");
      IssueTiming t;
      t.run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // At most two directions: no allocation in the timed loop.
      double spans[2] = {0, 0};
      for (std::size_t i = 0; i < plans_.size(); ++i) spans[i] = streams[i]->elapsed_s();
      t.run.device_s = spans[0];
      if (plans_.size() == 2) {
        // bidir: each direction's own span, and the union of the two (first start to last stop:
        // the largest stop-minus-start over the pairs of events), over which the pair's bytes count.
        t.h2d_s = spans[0];
        t.d2h_s = spans[1];
        t.run.device_s = std::max({spans[0], spans[1], elapsed_between(streams[0]->start, streams[1]->stop),
                                   elapsed_between(streams[1]->start, streams[0]->stop)});
      }
      return t;
    }

    std::string verify() override { return backend_.verify(case_, plans_, backend_.streams_); }

   private:
    GpuBackend& backend_;
    TransferCase case_;
    std::vector<Plan> plans_;
  };

  // The many-wave FMA kernel (gpu_compute_load.hpp); rates are launches per second.
  class Load final : public ComputeLoad {
   public:
    Load(int device, int sm_count) : load_(device, sm_count) {}
    double rate_alone() override {
      const double alone = load_.alone_seconds();
      return alone > 0 ? 1.0 / alone : 0.0;
    }
    void start() override { load_.start(); }
    double stop() override {
      const double during = load_.stop();
      return during > 0 ? 1.0 / during : 0.0;
    }
    std::string description() const override { return load_.description(); }

   private:
    GpuComputeLoad load_;
  };

  void prepare(const TransferCase& c, Plan& p) {
    // The copy kernel reads the table; verification reads it wherever the destination is visible
    // to the device (device memory, mapped pinned or write-combined host memory; not pageable,
    // where the kernel method is waived before this).
    const bool dst_pageable = p.dst->host_side() && c.host_mem == HostMemKind::kPageable;
    if (!dst_pageable) p.table = std::make_unique<DeviceCopyTable>(p.ops);
    if (c.method == Method::kKernel) {
      // Mapped once here, not per launch: the lookup would land in the timed wall time.
      p.src_view = p.src->device_view();
      p.dst_view = p.dst->device_view();
    } else if (c.method == Method::kCeBatch) {
      for (const auto& o : p.ops) {
        p.dsts.push_back(p.dst->get() + o.dst_offset);
        p.srcs.push_back(p.src->get() + o.src_offset);
        p.sizes.push_back(static_cast<std::size_t>(o.bytes));
      }
    }
  }

  // The run-time half of the ce-batch detection: one batch on a driver without the API says so.
  // Returns the reason to waive, or "" when the batch ran.
  std::string batch_copy_refused(Plan& p, gpuStream_t stream) {
#if defined(KVB_HAVE_BATCH_COPY)
    gpuError_t err = batch_copy(p.dsts.data(), p.srcs.data(), p.sizes.data(), p.sizes.size(), stream);
    if (err == gpuSuccess) err = gpuStreamSynchronize(stream);
    if (batch_copy_unsupported(err)) {
      (void)gpuGetLastError();  // clear it: the error is the answer, not a fault
      return std::string("the ") + KVB_GPU_RUNTIME +
             " driver refused the batched copy API: " + gpuGetErrorString(err);
    }
    check(err, "batched copy");
#else
    (void)p;
    (void)stream;
#endif
    return "";
  }

  static void copy_one(const Plan& p, const CopyOp& o, gpuStream_t stream) {
    check(gpuMemcpyAsync(p.dst->get() + o.dst_offset, p.src->get() + o.src_offset,
                         static_cast<std::size_t>(o.bytes), gpuMemcpyDefault, stream),
          "gpuMemcpyAsync");
  }

  // bidir with one copy per block: the two directions are submitted block by block in turn, so
  // both start at once instead of one submission loop apart (1,000 small copies take longer to
  // submit than to run). No start barrier: a stream held behind one blocks the host once its
  // queue fills (per-layer cases submit 32,000 copies), and pageable copies block at once. The
  // single-call methods (ce-batch, kernel) are submitted back to back and need neither.
  static void issue_interleaved(const Plan& a, gpuStream_t sa, const Plan& b, gpuStream_t sb) {
    const std::size_t n = std::max(a.ops.size(), b.ops.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (i < a.ops.size()) copy_one(a, a.ops[i], sa);
      if (i < b.ops.size()) copy_one(b, b.ops[i], sb);
    }
  }

  void issue(const TransferCase& c, const Plan& p, gpuStream_t stream) {
    switch (c.method) {
      case Method::kCe:
        for (const auto& o : p.ops) copy_one(p, o, stream);
        break;
      case Method::kCeBatch:
#if defined(KVB_HAVE_BATCH_COPY)
        check(batch_copy(const_cast<void**>(p.dsts.data()), const_cast<const void**>(p.srcs.data()),
                         const_cast<std::size_t*>(p.sizes.data()), p.sizes.size(), stream),
              "batched copy");
#endif
        break;
      case Method::kKernel: {
        const int grid = c.ctas > 0 ? c.ctas : sm_count_;
        copy_blocks_kernel<<<grid, 512, 0, stream>>>(p.src_view, p.dst_view, p.table->ops(), p.table->size());
        check(gpuGetLastError(), "launching the copy kernel");
        break;
      }
    }
  }

  // Zeroes the blocks each direction writes: device destinations in their copy's stream order (a
  // gpuMemset on the legacy stream would not be ordered before a copy on a non-blocking stream),
  // host destinations by the host's threads.
  static void clear_destinations_of(const std::vector<Plan>& plans,
                                    const std::vector<std::unique_ptr<StreamAndEvents>>& streams) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const auto& p = plans[i];
      if (p.dst->host_side()) {
        clear_destinations(p.ops, p.dst->get());
        continue;
      }
      for (const auto& o : p.ops) {
        check(gpuMemsetAsync(p.dst->get() + o.dst_offset, 0, static_cast<std::size_t>(o.bytes),
                             streams[i]->stream),
              "clearing for verification");
      }
    }
  }

  // Compares every destination block with the source pattern after the measured runs: on the
  // device where it can see the destination, else (pageable) in parallel host threads.
  std::string verify(const TransferCase& c, const std::vector<Plan>& plans,
                     const std::vector<std::unique_ptr<StreamAndEvents>>& streams) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const auto& p = plans[i];
      const gpuStream_t stream = streams[i]->stream;
      const std::uint64_t src_pool = p.src->host_side() ? kHostPatternPool : kGpuPatternPool;
      std::string bad;
      if (p.table) {
        bad = verify_on_device(p.ops, *p.table, *p.dst, c.seed, src_pool, 2 * sm_count_, stream);
      } else {
        check(gpuStreamSynchronize(stream), "finishing the copies");
        bad = verify_copies(p.ops, p.dst->get(), c.seed, src_pool);
      }
      if (!bad.empty()) return bad;
    }
    return "";
  }

  GpuPoolCache pools_;
  std::vector<std::unique_ptr<StreamAndEvents>> streams_;  // one per direction, reused by every case
  bool batch_probed_ = false;
  std::string batch_refusal_;  // why the driver refused ce-batch ("" when it ran)
  int device_ = 0;
  int sm_count_ = 1;
};

}  // namespace

#if defined(KVBENCH_HIP)
std::unique_ptr<TransferBackend> make_hip_backend(int device) { return std::make_unique<GpuBackend>(device); }
int hip_device_count() { return GpuBackend::device_count(); }
#else
std::unique_ptr<TransferBackend> make_cuda_backend(int device) {
  return std::make_unique<GpuBackend>(device);
}
int cuda_device_count() { return GpuBackend::device_count(); }
#endif

}  // namespace kvb
