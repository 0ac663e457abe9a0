// dma across devices and the run's bookkeeping: --device lists, concurrent host devices and their
// aggregate, the driver version as operators know it, CTA-budget and default-block planning,
// parallel verification, and the vLLM summary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/data_pattern.hpp"
#include "backend/verify.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "dma/dma_json.hpp"
#include "dma/dma_sweep.hpp"
#include "dma/transfer_backend.hpp"
#include "output/dma/dma_output.hpp"
#include "output/dma/dma_prometheus.hpp"
#include "report/report_sections.hpp"

using namespace kvb;

TEST(DeviceList, AllListsAndMissingDevices) {
  EXPECT_EQ(parse_device_list("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_device_list("2,0", 3), (std::vector<int>{2, 0}));
  EXPECT_THROW((void)parse_device_list("3", 3), DeviceError);  // a device this machine lacks: exit 3
  EXPECT_THROW((void)parse_device_list("1,1", 3), UsageError);
  EXPECT_THROW((void)parse_device_list("gpu0", 3), UsageError);
  EXPECT_THROW((void)parse_device_list("-1", 3), UsageError);
}

// Pools are checked against MemAvailable (less 10%) before anything is allocated: a GPU pins a
// source and a destination host pool per device, the host backend keeps all four in host memory.
TEST(HostMemory, PoolsBeyondMemAvailableAreRefusedBeforeAllocation) {
  TransferCase c;
  c.block_bytes = 1 << 20;
  c.blocks = 1000;
  c.gpu_pool_blocks = 4000;  // 4000 MiB per pool
  c.host_pool_blocks = 4000;
  const std::uint64_t gib = 1ULL << 30;
  EXPECT_NO_THROW(check_host_memory({c}, 1, false, 10 * gib));           // 2 x 3.9 GiB = 7.8 < 9
  EXPECT_THROW(check_host_memory({c}, 2, false, 10 * gib), UsageError);  // 2 devices: 15.6 GiB
  EXPECT_THROW(check_host_memory({c}, 1, true, 10 * gib), UsageError);   // host backend: 4 pools
  EXPECT_NO_THROW(check_host_memory({c}, 8, true, 0));                   // unknown: the allocation will say
  const auto root = std::filesystem::temp_directory_path() / "kvb-meminfo";
  std::filesystem::create_directories(root / "proc");
  std::ofstream(root / "proc/meminfo") << "MemTotal:       131072000 kB\nMemFree:        1000 kB\n"
                                          "MemAvailable:   120000000 kB\n";
  EXPECT_EQ(host_memory_available(root.string()), 120000000ULL * 1024);
  std::filesystem::remove_all(root);
}

TEST(DriverVersion, ReadFromSysfsOrProcfsAndRuntimeAsMajorMinor) {
  const auto root = std::filesystem::temp_directory_path() / "kvb-fake-root";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "proc/driver/nvidia");
  std::ofstream(root / "proc/driver/nvidia/version")
      << "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
         "(dvs-builder@U16)\n"
         "GCC version:  gcc version 13.3.0\n";
  EXPECT_EQ(gpu_kernel_driver_version("cuda", root.string()), "580.159.04");
  std::filesystem::create_directories(root / "sys/module/nvidia");
  std::ofstream(root / "sys/module/nvidia/version") << "580.159.05\n";
  EXPECT_EQ(gpu_kernel_driver_version("cuda", root.string()), "580.159.05");  // sysfs first
  std::filesystem::create_directories(root / "sys/module/amdgpu");
  std::ofstream(root / "sys/module/amdgpu/version") << "6.12.12\n";
  EXPECT_EQ(gpu_kernel_driver_version("hip", root.string()), "6.12.12");
  EXPECT_EQ(gpu_kernel_driver_version("cuda", (root / "nowhere").string()), "");
  std::filesystem::remove_all(root);
  EXPECT_EQ(format_runtime_version("cuda", 13000), "13.0");
  EXPECT_EQ(format_runtime_version("cuda", 12080), "12.8");
  EXPECT_EQ(format_runtime_version("hip", 60443483), "6.4");
  EXPECT_EQ(format_runtime_version("hip", 70100000), "7.1");
  EXPECT_EQ(format_runtime_version("cuda", 0), "");
}

TEST(DmaPlan, CtaBudgetsMultiplyOnlyKernelCasesAndDefaultTransfersTakeAQuarterOfThePool) {
  DmaSweepSettings s;
  s.block = "2MiB";
  s.direction = "h2d";
  s.ctas = "4,8,0";
  s.pool = "256MiB";
  std::vector<BlocksReduced> notes;
  const auto cases = plan_dma_cases(s, true, notes);
  ASSERT_EQ(cases.size(), 5u);  // ce, ce-batch, kernel x 3 budgets
  EXPECT_EQ(cases[2].ctas, 4);
  EXPECT_EQ(cases[4].ctas, 0);
  EXPECT_EQ(cases[0].ctas, 0);
  EXPECT_NE(cases[2].id(), cases[3].id());
  // 256 MiB / 2 MiB = 128 blocks in the pool; a transfer takes 32 and the pool stays 4x larger.
  EXPECT_EQ(cases[0].blocks, 32);
  EXPECT_EQ(cases[0].gpu_pool_blocks, 128);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(
      blocks_reduced_text(notes[0]),
      "2.00 MiB blocks: 32 per transfer (a quarter of the 256.00 MiB pool; --blocks or --pool to change)");
  s.ctas = "4,-1";
  EXPECT_THROW((void)plan_dma_cases(s, true, notes), UsageError);
  s.ctas = "";
  EXPECT_THROW((void)plan_dma_cases(s, true, notes), UsageError);
  DmaSweepSettings q;
  apply_quick(q);
  EXPECT_EQ(plan_dma_cases(q, true, notes).size(), 27u);  // 3 sizes x 3 methods x 3 directions
  EXPECT_NO_THROW(validate_stopping_rule(q.rule));
}

// The parallel checker reports the lowest failing copy, as the serial one did, and a clear
// zeroes exactly the copies' destinations.
TEST(Verify, LowestFailingCopyAcrossThreadsAndClearTouchesOnlyDestinations) {
  const std::uint64_t block = 64 << 10;
  const std::size_t n = 256;
  std::vector<unsigned char> pool(block * n);
  fill_pattern(pool.data(), pool.size(), 5, 1);
  std::vector<CopyOp> ops;
  for (std::size_t i = 0; i < n; ++i) ops.push_back(CopyOp{i * block, i * block, block});
  EXPECT_EQ(verify_copies(ops, pool.data(), 5, 1), "");
  pool[200 * block + 8] ^= 1;
  pool[37 * block + 16] ^= 1;
  EXPECT_EQ(verify_copies(ops, pool.data(), 5, 1).rfind("copy 37 ", 0), 0u);
  const std::vector<CopyOp> some{CopyOp{0, block, block}};
  clear_destinations(some, pool.data());
  for (std::uint64_t b = 0; b < block; ++b) ASSERT_EQ(pool[block + b], 0);
  EXPECT_NE(pool[0] | pool[1] | pool[2] | pool[3], 0);  // the copy before it is untouched
}

TEST(ConcurrentDevices, EveryHostDeviceVerifiesAndTheAggregateSumsThem) {
  std::vector<std::unique_ptr<TransferBackend>> owned;
  std::vector<TransferBackend*> backends;
  for (int d = 0; d < 3; ++d) {
    owned.push_back(make_host_backend(d));
    backends.push_back(owned.back().get());
  }
  DmaSweepSettings s;
  s.block = "16KiB";
  s.method = "ce,ce-batch";
  s.direction = "h2d,bidir";
  s.blocks = "64";
  std::vector<BlocksReduced> notes;
  const auto cases = plan_dma_cases(s, false, notes);
  StoppingRule rule;
  rule.max_seconds = 0.05;
  rule.warmups = 1;
  const auto records = run_dma_cases_concurrently(backends, cases, rule);
  ASSERT_EQ(records.size(), cases.size() * 3);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].device.index, static_cast<int>(i % 3));
    EXPECT_EQ(records[i].id, cases[i / 3].id());
    if (records[i].tcase.method == Method::kCeBatch) {
      EXPECT_TRUE(records[i].waived);  // every device leaves the group; nobody waits for it
    } else {
      EXPECT_TRUE(records[i].verified) << records[i].verify_detail;
    }
  }
  const auto all = aggregate_devices(records);
  ASSERT_EQ(all.size(), 2u);  // the ce cases; waived ones are left out
  EXPECT_EQ(all[0].devices, (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(all[0].median_gbps,
                   records[0].median_gbps + records[1].median_gbps + records[2].median_gbps);
  const auto doc = dma_json(records);
  ASSERT_TRUE(doc.contains("aggregates"));
  const auto back = dma_records_from_json(doc, "mem");
  EXPECT_EQ(back[2].device.index, 2);
  EXPECT_NE(dma_table(records).find("All devices at once"), std::string::npos);
  // The report draws each device and the node's sum; the first device's charts stay as before.
  const auto html = dma_section_html(records);
  EXPECT_NE(html.find("3 devices copying at once"), std::string::npos);
  EXPECT_NE(html.find("device 2"), std::string::npos);
  EXPECT_NE(html.find("all devices (sum)"), std::string::npos);
  // Prometheus: one series per device, labelled, and the aggregate.
  const auto prom = dma_prometheus(records);
  EXPECT_NE(prom.find("device_index=\"2\""), std::string::npos);
  EXPECT_NE(prom.find("kvbench_dma_all_devices_median_gbps{"), std::string::npos);
}

TEST(VllmSummary, RanksMethodsPerBlockSizeAndSaysWhatWasNotMeasured) {
  std::vector<DmaRecord> records;
  const auto add = [&](Method m, std::uint64_t block, double gbps, int ctas = 0, bool compute = false,
                       double slowdown = 0) {
    DmaRecord r;
    r.tcase.method = m;
    r.tcase.direction = Direction::kH2D;
    r.tcase.block_bytes = block;
    r.tcase.ctas = ctas;
    r.tcase.with_compute = compute;
    r.median_gbps = gbps;
    r.verified = true;
    r.compute_slowdown = slowdown;
    records.push_back(r);
  };
  add(Method::kCe, 2 << 20, 49.2);
  add(Method::kCeBatch, 2 << 20, 52.3);
  add(Method::kKernel, 2 << 20, 50.0);
  add(Method::kKernel, 64 << 10, 30.0, 8, true, 1.03);
  add(Method::kKernel, 64 << 10, 30.0, 0, true, 1.12);
  add(Method::kCe, 64 << 10, 16.0, 0, true, 1.00);
  const auto text = dma_vllm_summary(records);
  EXPECT_NE(text.find("2 MiB       h2d: ce-batch 52.3 (kernel 50.0, ce 49.2)"), std::string::npos) << text;
  EXPECT_NE(text.find("per-layer fragments"), std::string::npos);
  EXPECT_NE(text.find("not measured (add --block 16KiB,64KiB"), std::string::npos);
  EXPECT_NE(text.find("ce 1.00x, kernel/8 1.03x, kernel (every SM) 1.12x"), std::string::npos) << text;
}
