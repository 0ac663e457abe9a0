// The worker pool under size's and simulate's sweeps: every index runs once whatever the job
// count, a failure stops new tasks and says which finished, and the usable cores honour a cgroup's
// CPU quota (files written here, as /sys would hold them).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/worker_pool.hpp"

namespace kvb {
namespace {

TEST(WorkerPool, EveryIndexRunsOnceAtAnyJobCount) {
  for (int jobs : {1, 2, 7, 64}) {
    std::vector<std::atomic<int>> runs(100);
    const auto run = run_indexed(runs.size(), jobs, [&](std::size_t i) { runs[i]++; });
    EXPECT_FALSE(run.error);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].load(), 1) << "index " << i << " at " << jobs << " jobs";
      EXPECT_TRUE(run.finished[i]);
    }
  }
}

TEST(WorkerPool, AFailureIsKeptAndNoTaskStartsAfterIt) {
  // One job: tasks run in order, so exactly 0..4 finish and the failing task 5 is the last started.
  std::vector<int> started;
  const auto run = run_indexed(10, 1, [&](std::size_t i) {
    started.push_back(static_cast<int>(i));
    if (i == 5) throw std::runtime_error("task 5");
  });
  ASSERT_TRUE(run.error);
  EXPECT_EQ(started, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(run.finished[i] != 0, i < 5) << i;
  EXPECT_THROW(std::rethrow_exception(run.error), std::runtime_error);
}

class CgroupRoot : public ::testing::Test {
 protected:
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("kvbench-cgroup-" + std::to_string(::getpid()));
  void write(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
  void TearDown() override { std::filesystem::remove_all(root); }
};

TEST_F(CgroupRoot, AQuotaCapsTheCoresRoundedUp) {
  // 150 ms of CPU per 100 ms: one and a half CPUs, so two jobs (never more than the affinity mask).
  write("sys/fs/cgroup/cpu.max", "150000 100000\n");
  EXPECT_EQ(usable_cores(root.string()), std::min(2, usable_cores("/nonexistent")));
  write("sys/fs/cgroup/cpu.max", "50000 100000\n");  // half a CPU still runs one job
  EXPECT_EQ(usable_cores(root.string()), 1);
}

TEST_F(CgroupRoot, NoQuotaLeavesTheAffinityMask) {
  write("sys/fs/cgroup/cpu.max", "max 100000\n");
  EXPECT_EQ(usable_cores(root.string()), usable_cores("/nonexistent"));
}

TEST_F(CgroupRoot, CgroupV1QuotaIsRead) {
  write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "100000\n");
  write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(usable_cores(root.string()), 1);
  write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");  // v1's "no limit"
  EXPECT_EQ(usable_cores(root.string()), usable_cores("/nonexistent"));
}

TEST(WorkerPool, JobCountsOutsideTheRangeAreRefused) {
  EXPECT_EQ(resolve_jobs(3), 3);
  EXPECT_EQ(resolve_jobs(0), usable_cores());
  EXPECT_THROW(resolve_jobs(-1), UsageError);
  EXPECT_THROW(resolve_jobs(1025), UsageError);
}

}  // namespace
}  // namespace kvb
