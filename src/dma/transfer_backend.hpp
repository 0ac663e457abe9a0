#pragma once
// A place KV blocks can be copied: the host reference backend, CUDA, or HIP. measure() is the one
// measurement skeleton (dma/measure.hpp); backends implement the protected do_* hooks.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dma/measure.hpp"
#include "dma/statistics.hpp"
#include "dma/transfer_case.hpp"

namespace kvb {

// Another process on the GPU, as NVML or ROCm SMI lists it.
struct GpuProcess {
  unsigned pid = 0;
  std::string name;        // /proc/PID/comm where visible, else ""
  double used_bytes = -1;  // GPU memory it holds; -1 unknown
};

// What else was running on the device when kvbench measured it: a busy GPU shares its copy
// engines, PCIe link and HBM, so its figures are not the link's (compare refuses them).
struct GpuOccupancy {
  bool queried = false;            // the management library answered
  std::string source;              // "NVML", "ROCm SMI", or why it was not asked
  std::vector<GpuProcess> others;  // compute processes other than kvbench itself
  int utilization_percent = -1;    // the GPU's busy share over the last sample; -1 unknown
  bool disturbed() const;          // others, or utilization at or above kBusyUtilizationPercent
};

// Busy enough before kvbench copies anything that the figures would be shared: half the time.
inline constexpr int kBusyUtilizationPercent = 50;

struct DeviceInfo {
  std::string backend;             // host, cuda, hip
  std::string name;                // e.g. "NVIDIA H100 80GB HBM3"
  int index = 0;                   // the device's index in its runtime (--device)
  std::string driver_version;      // the kernel driver, e.g. "580.159.04" (NVIDIA), amdgpu's version
  std::string driver_api_version;  // what the runtime's driver query returns, e.g. "13.0"
  std::string runtime_version;     // e.g. "13.0"
  std::string pci_bus_id;          // for sysfs link and NUMA lookups
  int numa_node = -1;
  double link_ceiling_gbps = 0;          // per direction; 0 = unknown
  std::string link;                      // e.g. "PCIe Gen5 x16", or "memcpy (host backend)"
  std::string timing;                    // how durations are taken
  std::vector<std::string> environment;  // settings that change what is measured, e.g. "HSA_ENABLE_SDMA=0"
  GpuOccupancy occupancy;                // other work on the device when the run started (GPU backends)
};

struct CaseResult {
  bool waived = false;
  std::string waive_reason;
  std::vector<TimedRun> runs;  // the whole transfer; bidir: both directions together
  std::vector<double> h2d_s;   // bidir only: each direction's own span, per timed run
  std::vector<double> d2h_s;
  bool converged = false;
  bool verified = false;
  std::string verify_detail;  // first mismatch when not verified
  int host_numa_node = -1;    // where the host pool's pages landed (read back), -1 unknown
  // --with-compute: the compute load's work rate alone and while the copies ran (units per s).
  double compute_alone_per_s = 0;
  double compute_during_per_s = 0;
  std::string compute_load;  // what the load is, e.g. "2 threads of dependent FMAs"
  // Where the case's time went (seconds): the whole measure() call, the recorded runs, the loop
  // (warm-ups, recorded runs, runs held for other devices), and building pools (first case only).
  double precision = 0;  // the median's relative 95% half-width at the stop
  double case_s = 0, timed_s = 0, loop_s = 0, pool_setup_s = 0;
};

// Moves a finished run loop into `r`: samples, convergence, time accounting, and for bidir each
// direction's spans of the recorded runs only (warm-ups come first, held runs last).
void take_runs(CaseResult& r, RunResult&& run, const std::vector<double>& h2d_spans,
               const std::vector<double>& d2h_spans);

// Pinning `bytes` of host memory one way an inference server does it, timed from allocation to
// pinned (doctor's start-up cost of a CPU tier).
struct PinningTiming {
  std::string how;  // e.g. "cudaHostAlloc", "mmap + first touch + mlock (host)"
  double bytes = 0;
  double seconds = 0;
  std::string error;         // non-empty: it could not pin (the reason)
  bool server_tier = false;  // vLLM's own way (its CPU tier cannot start where this fails)
};

class TransferBackend {
 public:
  virtual ~TransferBackend() = default;
  // The ways this backend's runtime pins host memory, each timed (GPU: cudaHostAlloc, and a file in
  // `shm_dir` mapped, touched and registered as vLLM's CPU tier does). Empty: the backend pins
  // nothing (the host backend; doctor then times mmap + mlock as the stand-in).
  virtual std::vector<PinningTiming> measure_pinning(std::uint64_t /*bytes*/,
                                                     const std::string& /*shm_dir*/) {
    return {};
  }
  const DeviceInfo& info() const { return info_; }
  // What else was on the device when the run started (backend/gpu_occupancy probes it).
  void set_occupancy(GpuOccupancy o) { info_.occupancy = std::move(o); }
  // Waives what cannot run here; otherwise prepares the case, runs warm-ups and timed
  // repetitions until the rule stops (under the compute load for --with-compute), then verifies
  // what the timed copies wrote.
  CaseResult measure(const TransferCase& c, const StoppingRule& rule);
  // Announces a sweep's cases: pools are then built once, large enough for all of them, instead
  // of again for each larger case.
  void reserve(const std::vector<TransferCase>& cases);

 protected:
  // Why `c` cannot run on this backend or build, "" when it can; asked before anything is allocated.
  virtual std::string do_waive(const TransferCase& c) = 0;
  // Pools (time in r.pool_setup_s, placement in r.host_numa_node), copy lists, destinations
  // cleared. May still waive (set r.waived and r.waive_reason, return nullptr): a driver that
  // refuses an API only says so when called.
  virtual std::unique_ptr<PreparedCase> do_prepare(const TransferCase& c, CaseResult& r) = 0;
  virtual std::unique_ptr<ComputeLoad> do_compute_load() = 0;
  virtual void do_reserve(std::uint64_t gpu_pool_bytes, std::uint64_t host_pool_bytes) = 0;
  DeviceInfo info_;
};

}  // namespace kvb
