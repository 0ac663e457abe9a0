// vLLM's choice of all-reduce per buffer and its cost, checked by hand against
// vllm/distributed/device_communicators/custom_all_reduce.py (should_custom_ar, the supported
// world sizes, PCIe beyond 2 GPUs) and csrc/custom_all_reduce.cuh (the one-shot thresholds).
#include <gtest/gtest.h>

#include "perf/all_reduce.hpp"

namespace {

using kvb::AllReduceAlgorithm;
using kvb::AllReduceFabric;
using kvb::GpuLinkKind;

// An H100's NVLink: 450 GB/s x 0.75 per direction, 4.8 us per synchronisation.
AllReduceFabric nvlink(int ranks) {
  return {.ranks = ranks, .kind = GpuLinkKind::kNvlink, .gbps = 337.5, .latency_us = 4.8};
}

constexpr double kKiB = 1024;

TEST(AllReduce, AlgorithmPerWorldSizeAndBuffer) {
  // gpt-oss-120b's decode of 4 tokens: 4 x 2,880 x 2 B = 23,040 B: one-shot at 2, 4 and 8 ranks.
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(2), 23040), AllReduceAlgorithm::kOneShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(4), 23040), AllReduceAlgorithm::kOneShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(8), 23040), AllReduceAlgorithm::kOneShot);
  // Up to 4 ranks one-shot below 512 KiB, at 6 and 8 below 256 KiB; two-shot from there.
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(4), 511 * kKiB), AllReduceAlgorithm::kOneShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(4), 512 * kKiB), AllReduceAlgorithm::kTwoShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(6), 300 * kKiB), AllReduceAlgorithm::kTwoShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(8), 255 * kKiB), AllReduceAlgorithm::kOneShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(8), 256 * kKiB), AllReduceAlgorithm::kTwoShot);
  // 2 ranks: one-shot whatever the size below the 8 MiB buffer; from 8 MiB on, NCCL.
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(2), 8191 * kKiB), AllReduceAlgorithm::kOneShot);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(2), 8192 * kKiB), AllReduceAlgorithm::kRing);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(8), 8192 * kKiB), AllReduceAlgorithm::kRing);
  // World sizes the custom kernel does not serve: NCCL.
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(3), 23040), AllReduceAlgorithm::kRing);
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(16), 23040), AllReduceAlgorithm::kRing);
  // PCIe: 2 GPUs keep the custom kernel, more fall back to NCCL.
  AllReduceFabric pcie = nvlink(2);
  pcie.kind = GpuLinkKind::kPcie;
  EXPECT_EQ(kvb::all_reduce_algorithm(pcie, 23040), AllReduceAlgorithm::kOneShot);
  pcie.ranks = 4;
  EXPECT_EQ(kvb::all_reduce_algorithm(pcie, 23040), AllReduceAlgorithm::kRing);
  // One rank, an unknown fabric or an empty buffer: none.
  EXPECT_EQ(kvb::all_reduce_algorithm(nvlink(1), 23040), AllReduceAlgorithm::kNone);
  AllReduceFabric unknown = nvlink(4);
  unknown.gbps = 0;
  EXPECT_EQ(kvb::all_reduce_algorithm(unknown, 23040), AllReduceAlgorithm::kNone);
  EXPECT_EQ(kvb::all_reduce_seconds(unknown, 23040), 0);
  EXPECT_EQ(kvb::all_reduce_seconds(nvlink(1), 23040), 0);
}

// One-shot: two barriers whatever n, and the buffer read from each of the n - 1 peers. 23,040 B at
// TP 8: 2 x 4.8 us + 7 x 23,040 / 337.5e9 = 9.6 + 0.478 us, where NCCL's ring would pay 14 steps:
// 67.2 us + 2 x 7/8 x 23,040 / 337.5e9 = 0.119 us.
TEST(AllReduce, OneShotCostByHand) {
  EXPECT_NEAR(kvb::all_reduce_seconds(nvlink(8), 23040), 9.6e-6 + 7 * 23040 / 337.5e9, 1e-15);
  EXPECT_NEAR(kvb::all_reduce_bandwidth_seconds(nvlink(8), 23040), 7 * 23040 / 337.5e9, 1e-15);
  EXPECT_NEAR(kvb::all_reduce_seconds(nvlink(4), 23040), 9.6e-6 + 3 * 23040 / 337.5e9, 1e-15);
  // The same latency at 2, 4 and 8 ranks: it does not grow with n as the ring's does.
  const double fixed2 =
      kvb::all_reduce_seconds(nvlink(2), 16) - kvb::all_reduce_bandwidth_seconds(nvlink(2), 16);
  const double fixed8 =
      kvb::all_reduce_seconds(nvlink(8), 16) - kvb::all_reduce_bandwidth_seconds(nvlink(8), 16);
  EXPECT_NEAR(fixed2, 9.6e-6, 1e-15);
  EXPECT_NEAR(fixed8, 9.6e-6, 1e-15);
}

// At 2 ranks the one-shot (2 barriers, 1 buffer from the peer) and the ring (2 steps, 2 x 1/2 of
// the buffer) cost the same, so whether a PCIe pair passes vLLM's P2P check does not move a step.
TEST(AllReduce, TwoRanksOneShotEqualsRing) {
  for (const double bytes : {16.0, 23040.0, 1.6e6}) {
    AllReduceFabric f = nvlink(2);
    const double one_shot = kvb::all_reduce_seconds(f, bytes);
    f.kind = GpuLinkKind::kPcie;
    EXPECT_NEAR(one_shot, kvb::all_reduce_seconds(f, bytes), 1e-15);
    EXPECT_NEAR(one_shot, 2 * 4.8e-6 + bytes / 337.5e9, 1e-15);
  }
}

// Two-shot and the ring: 2 (n - 1) steps and 2 (n - 1) / n of the buffer. 1 MiB at TP 4:
// 6 x 4.8 us + 1.5 x 1,048,576 / 337.5e9 = 28.8 + 4.66 us; 9 MiB (NCCL) the same formula.
TEST(AllReduce, TwoShotAndRingCostByHand) {
  const double mib = 1024 * kKiB;
  EXPECT_NEAR(kvb::all_reduce_seconds(nvlink(4), mib), 28.8e-6 + 1.5 * mib / 337.5e9, 1e-15);
  EXPECT_NEAR(kvb::all_reduce_seconds(nvlink(4), 9 * mib), 28.8e-6 + 1.5 * 9 * mib / 337.5e9, 1e-15);
  EXPECT_NEAR(kvb::all_reduce_seconds(nvlink(3), 23040), 4 * 4.8e-6 + 4.0 / 3 * 23040 / 337.5e9, 1e-15);
}

TEST(AllReduce, Names) {
  EXPECT_EQ(kvb::to_string(AllReduceAlgorithm::kOneShot), "custom one-shot");
  EXPECT_EQ(kvb::to_string(AllReduceAlgorithm::kTwoShot), "custom two-shot");
  EXPECT_EQ(kvb::to_string(AllReduceAlgorithm::kRing), "NCCL ring");
}

}  // namespace
