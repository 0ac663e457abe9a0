#include "core/worker_pool.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/errors.hpp"

namespace kvb {
namespace {

constexpr int kMaxJobs = 1024;

// CPUs the cgroup's quota allows (quota / period, rounded up), or 0 where there is no limit.
int cgroup_cpus(const std::string& root) {
  std::ifstream v2(root + "/sys/fs/cgroup/cpu.max");
  std::string quota;
  double period = 0;
  if (v2 >> quota >> period) {
    if (quota == "max" || period <= 0) return 0;
    return std::max(1, static_cast<int>(std::ceil(std::stod(quota) / period)));
  }
  std::ifstream q(root + "/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  std::ifstream p(root + "/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  double us = 0;
  if (q >> us && p >> period && us > 0 && period > 0) {
    return std::max(1, static_cast<int>(std::ceil(us / period)));
  }
  return 0;
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int usable_cores(const std::string& root) {
  int cores = affinity_cpus();
  try {
    if (const int quota = cgroup_cpus(root); quota > 0) cores = std::min(cores, quota);
  } catch (const std::exception&) {
    // An unreadable quota is no limit: the affinity mask stands.
  }
  return std::clamp(cores, 1, kMaxJobs);
}

int resolve_jobs(long long requested, const std::string& flag) {
  if (requested == 0) return usable_cores();
  if (requested < 0 || requested > kMaxJobs) {
    throw UsageError(
        fmt::format("{} {} is out of range; expected 1 to {} simulations at once, or 0 for the "
                    "cores this process may use",
                    flag, requested, kMaxJobs));
  }
  return static_cast<int>(requested);
}

IndexedRun run_indexed(std::size_t n, int jobs, const std::function<void(std::size_t)>& task) {
  IndexedRun run{.finished = std::vector<char>(n, 0), .error = nullptr};
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  const auto work = [&] {
    for (std::size_t i = next++; i < n && !failed; i = next++) {
      try {
        task(i);
        run.finished[i] = 1;  // each index is written by one thread only
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!run.error) run.error = std::current_exception();
        failed = true;
      }
    }
  };
  const auto threads = static_cast<std::size_t>(std::max(1, jobs));
  if (threads <= 1 || n <= 1) {
    work();
    return run;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::min(threads, n); ++t) pool.emplace_back(work);
  for (auto& th : pool) th.join();
  return run;
}

}  // namespace kvb
