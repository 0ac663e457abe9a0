#pragma once
// Independent simulations on all the cores this process may use (size's tier sizes x draws,
// simulate's sweep points). A task's result belongs to its index, never to the thread that ran it,
// and each task's random stream comes from its own inputs: what a caller assembles is the same,
// byte for byte, at any number of jobs.
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace kvb {

// The CPUs this process may run on: its affinity mask (sched_getaffinity), capped by the cgroup's
// CPU quota (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us) under `root`; at least 1.
int usable_cores(const std::string& root = "/");

// The number of jobs `--jobs` asked for: 0 means usable_cores(); else 1..1024 (UsageError naming
// `flag` otherwise).
int resolve_jobs(long long requested, const std::string& flag = "--jobs");

// What run_indexed did: which tasks finished, and the first exception a task threw (the others
// still running finish their task; none starts after it).
struct IndexedRun {
  std::vector<char> finished;
  std::exception_ptr error;
};

// Runs task(i) for every i in [0, n) on up to `jobs` threads; each thread takes the next index as
// it finishes one (points differ in cost). jobs <= 1 runs them in order on this thread.
IndexedRun run_indexed(std::size_t n, int jobs, const std::function<void(std::size_t)>& task);

}  // namespace kvb
