// The busy-GPU probe against a fake NVML (tests/unit/fakes/fake_nvml.cpp), loaded in place of the
// driver's libnvidia-ml: what it lists is what a shared GPU would show.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "backend/gpu_occupancy.hpp"
#include "compare/benchmark_set.hpp"
#include "core/errors.hpp"
#include "dma/dma_json.hpp"
#include "dma/dma_record.hpp"
#include "output/common/occupancy_text.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

DeviceInfo fake_gpu() {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = "NVIDIA H100 80GB HBM3";
  d.pci_bus_id = "0000:1b:00.0";
  return d;
}

std::string comm(unsigned pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

struct FakeNvml : ::testing::Test {
  void SetUp() override { ::setenv("FAKE_NVML_BUS", "0000:1b:00.0", 1); }
  void TearDown() override {
    for (const char* v : {"FAKE_NVML_BUS", "FAKE_NVML_PIDS", "FAKE_NVML_UTIL"}) ::unsetenv(v);
  }
  static void run(const std::string& pids, const char* util) {
    ::setenv("FAKE_NVML_PIDS", pids.c_str(), 1);
    if (util != nullptr) ::setenv("FAKE_NVML_UTIL", util, 1);
  }
};

TEST_F(FakeNvml, OtherProcessesAreNamedAndKvbenchItselfIsNot) {
  const auto me = static_cast<unsigned>(::getpid()), parent = static_cast<unsigned>(::getppid());
  run(std::to_string(me) + ":1048576," + std::to_string(parent) + ":41339060224,4000000:-", "97");
  const auto o = probe_gpu_occupancy(fake_gpu(), KVBENCH_FAKE_NVML);
  ASSERT_TRUE(o.queried) << o.source;
  EXPECT_EQ(o.source, "NVML");
  ASSERT_EQ(o.others.size(), 2u);
  EXPECT_EQ(o.others[0].pid, parent);
  EXPECT_EQ(o.others[0].name, comm(parent));
  EXPECT_DOUBLE_EQ(o.others[0].used_bytes, 41339060224.0);
  EXPECT_EQ(o.others[1].pid, 4000000u);
  EXPECT_DOUBLE_EQ(o.others[1].used_bytes, -1);  // NVML_VALUE_NOT_AVAILABLE
  EXPECT_EQ(o.utilization_percent, 97);
  EXPECT_TRUE(o.disturbed());
  auto d = fake_gpu();
  d.occupancy = o;
  const auto line = occupancy_text(d);
  EXPECT_NE(line.find("2 other processes"), std::string::npos) << line;
  EXPECT_NE(line.find("38.5 GiB"), std::string::npos) << line;
  EXPECT_NE(line.find("97% busy"), std::string::npos) << line;
}

TEST_F(FakeNvml, AnIdleGpuIsNotDisturbed) {
  run(std::to_string(::getpid()) + ":1048576", "3");
  const auto o = probe_gpu_occupancy(fake_gpu(), KVBENCH_FAKE_NVML);
  EXPECT_TRUE(o.queried);
  EXPECT_TRUE(o.others.empty());
  EXPECT_FALSE(o.disturbed());
  run("", "50");  // busy with no process it may see (another container): disturbed at 50%
  EXPECT_TRUE(probe_gpu_occupancy(fake_gpu(), KVBENCH_FAKE_NVML).disturbed());
}

TEST_F(FakeNvml, UnknownDeviceOrLibraryIsNotAnAnswer) {
  auto other = fake_gpu();
  other.pci_bus_id = "0000:9a:00.0";
  const auto o = probe_gpu_occupancy(other, KVBENCH_FAKE_NVML);
  EXPECT_FALSE(o.queried);
  EXPECT_NE(o.source.find("no device at PCI 0000:9a:00.0"), std::string::npos) << o.source;
  const auto missing = probe_gpu_occupancy(fake_gpu(), "/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(missing.queried);
  EXPECT_NE(missing.source.find("NVML not found"), std::string::npos);
  DeviceInfo host;
  host.backend = "host";
  EXPECT_FALSE(probe_gpu_occupancy(host).queried);
}

// What dma writes, its reader and compare read back; compare refuses a disturbed run.
TEST_F(FakeNvml, RecordedInDmaJsonAndRefusedByCompare) {
  run("4242:2147483648", "88");
  DmaRecord r;
  r.id = "ce-h2d-2MiB";
  r.tcase.block_bytes = 2u << 20;
  r.device = fake_gpu();
  r.device.occupancy = probe_gpu_occupancy(r.device, KVBENCH_FAKE_NVML);
  r.bytes = 2u << 20;
  r.samples_s = {1e-4, 1.1e-4, 0.9e-4};
  r.verified = r.converged = true;
  const auto doc = dma_json({r});
  const auto& j = doc.at("records").at(0);
  ASSERT_EQ(j.at("other_gpu_processes").size(), 1u);
  EXPECT_EQ(j.at("other_gpu_processes").at(0).at("pid"), 4242);
  EXPECT_EQ(j.at("gpu_utilization_percent"), 88);
  const auto back = dma_records_from_json(doc, "head.json");
  ASSERT_EQ(back.size(), 1u);
  const auto& o = back[0].device.occupancy;
  EXPECT_TRUE(o.queried);
  EXPECT_EQ(o.source, "NVML");
  ASSERT_EQ(o.others.size(), 1u);
  EXPECT_DOUBLE_EQ(o.others[0].used_bytes, 2147483648.0);
  EXPECT_EQ(o.utilization_percent, 88);
  const auto again = dma_json(back).at("records").at(0);  // write, read, write: the same fields
  for (const char* key :
       {"other_gpu_processes", "gpu_utilization_percent", "occupancy_queried", "occupancy_source"}) {
    EXPECT_EQ(again.at(key), j.at(key)) << key;
  }

  const auto head = benchmark_set_from_json(doc, "head.json");
  auto idle = r;
  idle.device.occupancy = {};
  const auto base = benchmark_set_from_json(dma_json({idle}), "base.json");
  EXPECT_TRUE(base.disturbed.empty());
  ASSERT_EQ(head.disturbed.size(), 1u);
  const auto shared = first_disturbed(base, head);
  ASSERT_TRUE(shared.has_value()) << "a disturbed head was not found";
  EXPECT_EQ(shared->origin, "head.json");
  EXPECT_EQ(occupancy_text(shared->device).rfind("GPU 0 (", 0), 0u) << occupancy_text(shared->device);
  EXPECT_FALSE(first_disturbed(base, base).has_value());
}

}  // namespace
}  // namespace kvb
