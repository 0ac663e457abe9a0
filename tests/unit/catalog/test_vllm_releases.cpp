// Each release fact at its boundary release, and the host memory of the Simple connector's tier.
#include <gtest/gtest.h>

#include <set>

#include "catalog/vllm_releases.hpp"
#include "core/errors.hpp"

namespace kvb {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(VllmReleases, EveryChangeHasOneRowWithASource) {
  std::set<ReleaseChange> seen;
  for (const auto& f : release_facts()) {
    EXPECT_TRUE(seen.insert(f.change).second);
    EXPECT_NE(std::string(f.source).find('#'), std::string::npos) << f.what;  // a PR or an issue
    EXPECT_FALSE(kNewestModelledVllm < f.from) << f.what;                     // within what is modelled
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kReleaseChangeCount));
}

TEST(VllmReleases, EachChangeStartsAtItsRelease) {
  const struct {
    ReleaseChange change;
    VllmVersion last_without, first_with;
  } cases[] = {
      {ReleaseChange::kSimpleConnector, {0, 18, 1}, {0, 19, 0}},      // PR #37160
      {ReleaseChange::kHybridOffload, {0, 20, 2}, {0, 21, 0}},        // kvcached PR #351
      {ReleaseChange::kTiering, {0, 21, 9}, {0, 22, 0}},              // PR #40020
      {ReleaseChange::kSharedRegion, {0, 26, 1}, {0, 27, 0}},         // PR #50094, issue #53042
      {ReleaseChange::kSimpleDiskBackend, {0, 26, 1}, {0, 27, 0}},    // PR #49644
      {ReleaseChange::kDraftOffload, {0, 29, 1}, {0, 30, 0}},         // PR #52771
      {ReleaseChange::kChunkedRegistration, {0, 30, 2}, {0, 31, 0}},  // PR #51081
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(has_change(c.last_without, c.change)) << to_string(c.last_without);
    EXPECT_TRUE(has_change(c.first_with, c.change)) << to_string(c.first_with);
    EXPECT_TRUE(has_change({0, 40, 0}, c.change));  // a release newer than kvbench knows has them all
  }
}

TEST(VllmReleases, OneRegistrationOf512GibFailsBetweenTheRegionAndItsChunks) {
  // Issue #51080: 511.96 GiB pinned, 512.15 GiB refused, in one cudaHostRegister call.
  const double below = 511.96 * kGiB, at = 512 * kGiB;
  EXPECT_FALSE(region_pin_fails(below, {0, 27, 0}));
  EXPECT_TRUE(region_pin_fails(at, {0, 27, 0}));
  EXPECT_TRUE(region_pin_fails(600e9, {0, 30, 1}));
  EXPECT_FALSE(region_pin_fails(600e9, {0, 31, 0}));  // registered in chunks of 64 GiB (#51081)
  EXPECT_FALSE(region_pin_fails(600e9, {0, 26, 0}));  // per-rank pinned tensors: no one region
}

TEST(VllmReleases, TheDefaultIsTheNewestModelledAndANewerReleaseIsReadAsIt) {
  EXPECT_EQ(to_string(kNewestModelledVllm), "0.33.0");
  EXPECT_FALSE(tier_host_footprint(kGiB, 1, 1, {0, 33, 2}).newer_than_modelled);
  const auto newer = tier_host_footprint(kGiB, 1, 1, parse_vllm_version("0.34", "--vllm-version"));
  EXPECT_TRUE(newer.newer_than_modelled);
  EXPECT_EQ(newer.backing, TierBacking::kSharedMemoryRegion);
  try {
    (void)parse_vllm_version("latest", "--vllm-version");
    ADD_FAILURE() << "'latest' parsed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("one newer than 0.33 is read as 0.33"), std::string::npos)
        << e.what();
  }
}

TEST(VllmReleases, TheSimpleConnectorTakesItsShareExactlyOutsideDevShm) {
  // torch.zeros then cudaHostRegister per rank (simple_kv_offload/worker.py): no power-of-two
  // rounding and no /dev/shm, on a release whose native tier would round (0.26) or map (0.33).
  for (const VllmVersion v : {VllmVersion{0, 26, 0}, VllmVersion{0, 33, 0}}) {
    const auto f = tier_host_footprint(80 * kGiB, 2, 1, v, TierConnector::kSimple);
    EXPECT_EQ(f.backing, TierBacking::kRegisteredTensors);
    EXPECT_DOUBLE_EQ(f.per_rank_bytes, 40 * kGiB);
    EXPECT_DOUBLE_EQ(f.per_rank_host_bytes, 40 * kGiB);
    EXPECT_DOUBLE_EQ(f.tier_host_bytes, 80 * kGiB);
    EXPECT_DOUBLE_EQ(f.dev_shm_bytes, 0);
  }
  // The native tier on 0.26 takes 128 GiB for the same flag (PR #48436: 40 GiB per rank -> 64).
  EXPECT_DOUBLE_EQ(tier_host_footprint(80 * kGiB, 2, 1, {0, 26, 0}).tier_host_bytes, 128 * kGiB);
}

TEST(VllmReleases, HostMemoryJsonReadsTheSimpleConnectorsBackingBack) {
  const auto f = tier_host_footprint(48 * kGiB, 4, 1, {0, 33, 0}, TierConnector::kSimple);
  const auto j = host_memory_json(f);
  EXPECT_EQ(j.at("backing"), "registered-tensors");
  const auto back = host_footprint_from_json(j);
  EXPECT_EQ(back.backing, TierBacking::kRegisteredTensors);
  EXPECT_EQ(host_memory_json(back).dump(), j.dump());
  // A native document reads back as the release's backing.
  const auto native = host_memory_json(tier_host_footprint(48 * kGiB, 4, 1, {0, 33, 0}));
  EXPECT_EQ(host_footprint_from_json(native).backing, TierBacking::kSharedMemoryRegion);
}

}  // namespace
}  // namespace kvb
