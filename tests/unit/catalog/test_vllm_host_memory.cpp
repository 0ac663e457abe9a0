// The tier's real host footprint against the figures the vLLM threads measured (hand-checked).
#include <gtest/gtest.h>

#include "catalog/vllm_host_memory.hpp"
#include "core/errors.hpp"

namespace kvb {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(VllmHostMemory, PinnedAllocatorRoundsToThePowerOfTwoAbove) {
  // vLLM PR #50094's table: torch.zeros(pin_memory=True) of 6, 10, 12 GiB took 8, 16, 16 GiB.
  EXPECT_DOUBLE_EQ(pinned_allocator_bytes(6 * kGiB), 8 * kGiB);
  EXPECT_DOUBLE_EQ(pinned_allocator_bytes(10 * kGiB), 16 * kGiB);
  EXPECT_DOUBLE_EQ(pinned_allocator_bytes(12 * kGiB), 16 * kGiB);
  EXPECT_DOUBLE_EQ(pinned_allocator_bytes(16 * kGiB), 16 * kGiB);  // a power of two stays
}

TEST(VllmHostMemory, TensorPathMatchesPr48436) {
  // TP 2, --kv-offloading-size 80: 40 GiB per worker took 64 GiB (RSS ~67 GB with the process).
  const auto f = tier_host_footprint(80 * kGiB, 2, 1, {0, 26, 0});
  EXPECT_EQ(f.backing, TierBacking::kPinnedTensors);
  EXPECT_DOUBLE_EQ(f.per_rank_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(f.per_rank_host_bytes, 64 * kGiB);
  EXPECT_DOUBLE_EQ(f.tier_host_bytes, 128 * kGiB);
  EXPECT_DOUBLE_EQ(f.dev_shm_bytes, 0);
  // --kv-offloading-size 64 at TP 2: 32 GiB per worker, a power of two, taken exactly.
  EXPECT_DOUBLE_EQ(tier_host_footprint(64 * kGiB, 2, 1, {0, 26, 0}).tier_host_bytes, 64 * kGiB);
}

TEST(VllmHostMemory, HybridModelMatchesIssue53042) {
  // vLLM 0.26.0, 200 GiB over 4 ranks, 24 tensors per rank of 2.083 GiB, each taking 4 GiB:
  // 96 GiB per rank, 384 GiB in all, 1.92x (the issue measured 385.0 GiB of node Shmem, 1.925x).
  const auto f = tier_host_footprint(200 * kGiB, 4, 24, {0, 26, 0});
  EXPECT_DOUBLE_EQ(f.per_rank_host_bytes, 96 * kGiB);
  EXPECT_DOUBLE_EQ(f.tier_host_bytes, 384 * kGiB);
  EXPECT_NEAR(f.ratio(), 1.925, 0.01);
}

TEST(VllmHostMemory, SharedRegionTakesTheFlagInDevShm) {
  const auto f = tier_host_footprint(80 * kGiB, 2, 1, {0, 27, 0});
  EXPECT_EQ(f.backing, TierBacking::kSharedMemoryRegion);
  EXPECT_DOUBLE_EQ(f.tier_host_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(f.dev_shm_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(f.process_bytes, 2 * kServerProcessGibPerRank * kGiB);
  EXPECT_FALSE(f.newer_than_modelled);
  EXPECT_TRUE(tier_host_footprint(kGiB, 1, 1, {0, 34, 0}).newer_than_modelled);
  EXPECT_FALSE(tier_host_footprint(kGiB, 1, 1, {0, 33, 4}).newer_than_modelled);
}

TEST(VllmHostMemory, VersionsParseOrNameTheFlag) {
  EXPECT_EQ(to_string(parse_vllm_version("0.26", "--vllm-version")), "0.26.0");
  EXPECT_EQ(to_string(parse_vllm_version("v0.27.1", "--vllm-version")), "0.27.1");
  EXPECT_EQ(to_string(parse_vllm_version("0.26.0rc2", "--vllm-version")), "0.26.0");
  EXPECT_EQ(to_string(parse_vllm_version("0.26.post1", "--vllm-version")), "0.26.0");
  // A nightly wheel's version (setuptools-scm: a .dev count and a +local label) is its release's code.
  EXPECT_EQ(to_string(parse_vllm_version("0.26.1.dev213+g1a2b3c.cu128", "--vllm-version")), "0.26.1");
  // Anything else after the release segments is not a version (each was accepted before).
  for (const auto* bad : {"0.33rabc", "0.33.", "0.33+", "0.33rc1x", "0.33.1.2.x"})
    EXPECT_THROW((void)parse_vllm_version(bad, "--vllm-version"), UsageError) << bad;
  for (const char* bad : {"", "0", "latest", "0.x", "0.26x", "0.10", "0.123456", "1.-2"}) {
    EXPECT_THROW((void)parse_vllm_version(bad, "--vllm-version"), UsageError) << bad;
  }
  try {
    (void)parse_vllm_version("0.9", "--vllm-version");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--vllm-version '0.9': older than the native CPU tier"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvb
