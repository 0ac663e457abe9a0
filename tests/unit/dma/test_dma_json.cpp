// kvbench/dma/v1: every field the writer writes, the reader reads (write, read, write: the same
// bytes), and the one ranking of methods per block that every printer uses.
#include <gtest/gtest.h>

#include "dma/dma_json.hpp"
#include "dma/method_ranking.hpp"

namespace kvb {
namespace {

DeviceInfo full_device() {
  return {.backend = "cuda",
          .name = "NVIDIA H100 80GB HBM3",
          .index = 3,
          .driver_version = "580.1",
          .driver_api_version = "13.0",
          .runtime_version = "12.8",
          .pci_bus_id = "0000:19:00.0",
          .numa_node = 1,
          .link_ceiling_gbps = 63.0,
          .link = "PCIe Gen5 x16",
          .timing = "cudaEvent",
          .environment = {"CUDA_DEVICE_MAX_CONNECTIONS=1"},
          .occupancy = {.queried = true,
                        .source = "NVML",
                        .others = {{.pid = 4242, .name = "python3", .used_bytes = 1e9}},
                        .utilization_percent = 7}};
}

// A record with every field set to something no default is, so a dropped field shows.
DmaRecord full_record(Direction d, bool verified) {
  DmaRecord r;
  r.tcase = {.direction = d,
             .method = Method::kKernel,
             .layout = Layout::kPerLayer,
             .layers = 4,
             .block_bytes = 2 << 20,
             .blocks = 77,
             .gpu_pool_blocks = 300,
             .host_pool_blocks = 400,
             .host_mem = HostMemKind::kPinned,
             .numa_node = 1,
             .ctas = 8,
             .seed = 0xfedcba9876543210ULL,
             .with_compute = true};
  r.id = r.tcase.id();
  r.device = full_device();
  r.host_cpu = "AMD EPYC";
  r.hostname = "node-7";
  r.host_numa_node = 1;
  r.samples_s = {0.004, 0.002, 0.003};
  r.wall_samples_s = {0.0041, 0.0021, 0.0031};
  r.time = summarize(r.samples_s);
  r.bytes = 2.0 * 77 * (2 << 20);
  r.median_gbps = 50.5;
  r.p10_gbps = 40.25;
  r.p90_gbps = 60.75;
  r.min_gbps = 39.5;
  r.max_gbps = 61.5;
  r.wall_gbps = 49.5;
  r.h2d_gbps = d == Direction::kBidir ? 25.5 : 0;
  r.d2h_gbps = d == Direction::kBidir ? 24.5 : 0;
  r.link_utilization = 0.8;
  r.converged = true;
  r.verified = verified;
  r.verify_detail = verified ? "" : "block 3 byte 17: 0x12 != 0x13";
  r.compute_alone_per_s = 1000;
  r.compute_during_per_s = 800;
  r.compute_slowdown = 1.25;
  r.compute_load = "2 threads of dependent FMAs";
  r.precision = 0.005;
  r.case_s = 2.5;
  r.timed_s = 0.009;
  r.loop_s = 1.5;
  r.pool_setup_s = 0.25;
  return r;
}

TEST(DmaJson, EveryFieldRoundTripsByteForByte) {
  auto waived = full_record(Direction::kH2D, true);
  waived.waived = true;
  waived.waive_reason = "no batched copy API in this runtime";
  const std::vector<DmaRecord> records = {full_record(Direction::kBidir, true),
                                          full_record(Direction::kD2H, false), waived};
  const auto written = dma_json(records).dump();
  const auto read = dma_records_from_json(nlohmann::json::parse(written), "test.json");
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(dma_json(read).dump(), written);
  // The fields the reader used to drop, spelled out.
  EXPECT_EQ(read[0].tcase.seed, 0xfedcba9876543210ULL);
  EXPECT_DOUBLE_EQ(read[0].min_gbps, 39.5);
  EXPECT_DOUBLE_EQ(read[0].max_gbps, 61.5);
  EXPECT_EQ(read[1].verify_detail, "block 3 byte 17: 0x12 != 0x13");
}

TEST(MethodRanking, FastestFirstPerBlockAndLayerSplitWithUnverifiedAndWaivedLeftOut) {
  auto make = [](Method m, int layers, double gbps) {
    auto r = full_record(Direction::kH2D, true);
    r.tcase.method = m;
    r.tcase.layers = layers;
    r.median_gbps = gbps;
    return r;
  };
  auto unverified = make(Method::kCe, 1, 99);
  unverified.verified = false;
  auto waived = make(Method::kCe, 1, 98);
  waived.waived = true;
  const std::vector<DmaRecord> rs = {make(Method::kCe, 1, 40),
                                     make(Method::kKernel, 1, 55),
                                     make(Method::kCeBatch, 1, 50),
                                     make(Method::kCe, 4, 20),
                                     unverified,
                                     waived};
  std::vector<const DmaRecord*> ptrs;
  for (const auto& r : rs) ptrs.push_back(&r);
  const auto ranking = rank_methods(ptrs);
  ASSERT_EQ(ranking.size(), 2u);  // one contiguous block, one split into 4 layers
  const auto& whole = ranking.at({2 << 20, 1}).at(Direction::kH2D);
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0]->tcase.method, Method::kKernel);
  EXPECT_EQ(whole[1]->tcase.method, Method::kCeBatch);
  EXPECT_EQ(whole[2]->tcase.method, Method::kCe);
  EXPECT_EQ(ranking.at({2 << 20, 4}).at(Direction::kH2D).size(), 1u);
}

}  // namespace
}  // namespace kvb
