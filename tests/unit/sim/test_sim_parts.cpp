// The simulator's parts in isolation: event order, RNG, the GPU block pool, the CPU tier and
// its eviction policies, the link model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/rng.hpp"
#include "dma/dma_record.hpp"
#include "dma/link_profile_fit.hpp"
#include "perf/link_curve.hpp"
#include "sim/event_queue.hpp"
#include "sim/flat_hash_map.hpp"
#include "sim/kv_block_manager.hpp"
#include "sim/offload_tier.hpp"
#include "sim/workload_generator.hpp"

namespace kvb {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.push(sim_time_at(2.0), EventKind::kArrival, 1);
  q.push(sim_time_at(1.0), EventKind::kArrival, 2);
  q.push(sim_time_at(2.0), EventKind::kStepDone, 3);
  q.push(sim_time_at(1.0), EventKind::kLoadDone, 4);
  std::vector<std::int64_t> order;
  while (!q.empty()) order.push_back(q.pop().id);
  EXPECT_EQ(order, (std::vector<std::int64_t>{2, 4, 1, 3}));
}

// The traffic's events and the engines' sit in two heaps; pops must still follow one order by
// (time, insertion) over both. Times from a handful of values make ties common, pushes and pops
// interleave as in a run, and a plain sorted list of what is pending is the reference.
TEST(EventQueue, TwoHeapsPopInOneOrderByTimeThenInsertion) {
  EventQueue q;
  std::vector<std::pair<SimTime, std::int64_t>> pending;  // (time, insertion number), kept sorted
  Rng rng(11);
  std::int64_t pushed = 0, popped = 0;
  for (int round = 0; round < 20'000; ++round) {
    if (pending.empty() || rng.uniform() < 0.55) {
      const SimTime t{SimDuration{static_cast<std::int64_t>(rng.below(8))}};
      const auto kind = static_cast<EventKind>(rng.below(9));  // every kind, both heaps
      q.push(t, kind, pushed);
      pending.insert(std::upper_bound(pending.begin(), pending.end(), std::make_pair(t, pushed)),
                     {t, pushed});
      ++pushed;
      continue;
    }
    const auto e = q.pop();
    ASSERT_EQ(e.id, pending.front().second) << "pop " << popped;
    ASSERT_EQ(e.time, pending.front().first);
    pending.erase(pending.begin());
    ++popped;
  }
  EXPECT_EQ(q.size(), pending.size());
  EXPECT_GT(popped, 5'000);
}

TEST(Rng, SameSeedSameStreamAndSaneMoments) {
  Rng a(42), b(42), c(43);
  EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(a.next(), c.next());
  Rng r(7);
  double sum = 0, sum_exp = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    sum += r.uniform();
    sum_exp += r.exponential(3.0);
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);     // mean of U(0,1)
  EXPECT_NEAR(sum_exp / n, 3.0, 0.05);  // mean of Exp(mean 3)
}

TEST(BlockHashes, SharedPrefixSharesExactlyTheFullBlocksItCovers) {
  // 40 common tokens then different text: blocks of 16 -> the first two blocks match, the third differs.
  const std::vector<Segment> a{{1, 40}, {2, 30}};
  const std::vector<Segment> b{{1, 40}, {3, 30}};
  const auto ha = block_hashes(a, 16), hb = block_hashes(b, 16);
  ASSERT_EQ(ha.size(), 4u);  // 70 tokens -> 4 full blocks
  EXPECT_EQ(ha[0], hb[0]);
  EXPECT_EQ(ha[1], hb[1]);
  EXPECT_NE(ha[2], hb[2]);
  EXPECT_NE(ha[3], hb[3]);
  // The same tokens split into segments differently are different content here (ids differ).
  const std::vector<Segment> c{{1, 48}};
  EXPECT_EQ(block_hashes(c, 16)[1], ha[1]);
}

SimRequest request_with(std::int64_t id, std::vector<std::uint64_t> hashes) {
  SimRequest r;
  r.id = id;
  r.block_hashes = std::move(hashes);
  return r;
}

TEST(KvBlockManager, AllocatesAllOrNothingAndConserves) {
  KvBlockManager kv(10, 16, true);
  auto a = request_with(1, {11, 12, 13, 14});
  ASSERT_TRUE(kv.allocate(a, {}, 64));  // 4 blocks
  EXPECT_EQ(kv.num_free(), 6);
  auto b = request_with(2, {21, 22, 23, 24, 25, 26, 27});
  EXPECT_FALSE(kv.allocate(b, {}, 7 * 16));  // needs 7, 6 free
  EXPECT_EQ(kv.num_free(), 6);               // nothing taken on failure
  EXPECT_TRUE(b.blocks.empty());
  ASSERT_TRUE(kv.allocate(b, {}, 6 * 16));
  EXPECT_EQ(kv.num_free(), 0);
  EXPECT_EQ(kv.check({&a, &b}), "");
  kv.release(a);
  kv.release(b);
  EXPECT_EQ(kv.num_free(), 10);
  EXPECT_EQ(kv.check({}), "");
}

TEST(KvBlockManager, PrefixHitsShareBlocksAndSurviveUntilEvicted) {
  KvBlockManager kv(6, 16, true);
  auto a = request_with(1, {11, 12, 13});
  ASSERT_TRUE(kv.allocate(a, {}, 48));
  kv.cache_blocks(a, 3);
  auto b = request_with(2, {11, 12, 99});
  const auto hits = kv.find_prefix(b.block_hashes, 3);
  ASSERT_EQ(hits.size(), 2u);
  ASSERT_TRUE(kv.allocate(b, hits, 48));  // two shared + one new
  EXPECT_EQ(kv.num_used(), 4);
  EXPECT_EQ(kv.check({&a, &b}), "");
  kv.release(a);
  kv.release(b);
  // Freed but cached: a third request still hits all three of a's blocks.
  auto c = request_with(3, {11, 12, 13, 50});
  EXPECT_EQ(kv.find_prefix(c.block_hashes, 4).size(), 3u);
  // Filling the pool with unrelated blocks evicts them.
  auto d = request_with(4, {});
  ASSERT_TRUE(kv.allocate(d, {}, 6 * 16));
  EXPECT_EQ(kv.find_prefix(c.block_hashes, 4).size(), 0u);
  EXPECT_GE(kv.evictions(), 3);
}

TEST(KvBlockManager, NeverUsedBlocksComeFirstAndCostNoMemory) {
  // A billion-block pool (16 GB were every block stored up front) hands out ids in order and keeps
  // its count; a freed block waits behind every never-used one, as in vLLM's queue.
  KvBlockManager kv(1'000'000'000, 16, true);
  auto a = request_with(1, {1, 2, 3});
  ASSERT_TRUE(kv.allocate(a, {}, 48));
  EXPECT_EQ(a.blocks, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(kv.num_free(), 1'000'000'000 - 3);
  kv.release(a);
  EXPECT_EQ(kv.num_free(), 1'000'000'000);
  auto b = request_with(2, {});
  ASSERT_TRUE(kv.allocate(b, {}, 16));
  EXPECT_EQ(b.blocks.front(), 3);  // not a freed block: those sit behind the never-used ones
  EXPECT_EQ(kv.check({&b}), "");
}

TEST(KvBlockManager, FreesTailFirstSoSharedHeadsLiveLonger) {
  KvBlockManager kv(4, 16, true);
  auto a = request_with(1, {1, 2, 3, 4});
  ASSERT_TRUE(kv.allocate(a, {}, 64));
  kv.cache_blocks(a, 4);
  kv.release(a);
  auto b = request_with(2, {});
  ASSERT_TRUE(kv.allocate(b, {}, 16));  // evicts one block: the tail (hash 4)
  auto probe = request_with(3, {1, 2, 3, 4});
  EXPECT_EQ(kv.find_prefix(probe.block_hashes, 4).size(), 3u);
}

TEST(KvBlockManager, ResetPrefixCacheForgetsFreeBlocksOnly) {
  KvBlockManager kv(4, 16, true);
  auto a = request_with(1, {1, 2});
  ASSERT_TRUE(kv.allocate(a, {}, 32));
  kv.cache_blocks(a, 2);
  kv.reset_prefix_cache();  // a still holds them: they stay cached
  EXPECT_EQ(kv.find_prefix({1, 2}, 2).size(), 2u);
  kv.release(a);
  kv.reset_prefix_cache();
  EXPECT_EQ(kv.find_prefix({1, 2}, 2).size(), 0u);
}

// Replays a reference string against a tier: a hit when ready, else a store.
std::int64_t replay_hits(OffloadTier& tier, const std::vector<std::uint64_t>& refs) {
  std::int64_t hits = 0;
  for (const auto h : refs) {
    if (tier.ready(h)) {
      ++hits;
      tier.pin_for_load({h});
      tier.unpin({h});
    } else {
      const auto got = tier.reserve(tier.select_for_store({h}));
      tier.store_done(got);
    }
    EXPECT_LE(tier.size(), tier.capacity());
    EXPECT_EQ(tier.check(), "");
  }
  return hits;
}

std::vector<std::uint64_t> zipf_trace(std::uint64_t seed, int n, int universe) {
  Rng r(seed);
  std::vector<double> cdf;
  double total = 0;
  for (int i = 0; i < universe; ++i) cdf.push_back(total += 1.0 / (i + 1));
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform() * total;
    out.push_back(static_cast<std::uint64_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) + 1);
  }
  return out;
}

TEST(OffloadTier, LruHitsNeverFallAsCapacityGrows) {
  // LRU is a stack algorithm: a larger cache holds a superset, so hits are monotone in capacity.
  const auto trace = zipf_trace(5, 20000, 2000);
  std::int64_t previous = -1;
  for (const std::int64_t cap : {0, 1, 10, 50, 200, 1000, 2000}) {
    OffloadTier tier(cap, EvictionKind::kLru, 1);
    const auto hits = replay_hits(tier, trace);
    EXPECT_GE(hits, previous) << "capacity " << cap;
    previous = hits;
  }
  OffloadTier all(2000, EvictionKind::kLru, 1);
  EXPECT_EQ(replay_hits(all, trace),
            20000 - static_cast<std::int64_t>(std::set<std::uint64_t>(trace.begin(), trace.end()).size()));
}

TEST(OffloadTier, ArcKeepsFrequentBlocksThroughAScan) {
  // Blocks 1..5 are hit repeatedly, then a one-time scan of 100 new blocks passes through a
  // tier of 20. LRU loses the hot set; ARC keeps it in T2.
  std::vector<std::uint64_t> trace;
  for (int round = 0; round < 5; ++round) {
    for (std::uint64_t h = 1; h <= 5; ++h) trace.push_back(h);
  }
  for (std::uint64_t h = 1000; h < 1100; ++h) trace.push_back(h);
  for (std::uint64_t h = 1; h <= 5; ++h) trace.push_back(h);
  OffloadTier lru(20, EvictionKind::kLru, 1), arc(20, EvictionKind::kArc, 1);
  const auto lru_hits = replay_hits(lru, trace);
  const auto arc_hits = replay_hits(arc, trace);
  EXPECT_EQ(lru_hits, 20);  // 4 repeat rounds x 5, the final round misses
  EXPECT_EQ(arc_hits, 25);  // the final round hits too
}

TEST(OffloadTier, PinnedAndInFlightBlocksAreNotEvicted) {
  OffloadTier tier(2, EvictionKind::kLru, 1);
  auto got = tier.reserve({1, 2});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(tier.reserve({3}).empty());  // both still being written
  tier.store_done({1, 2});
  tier.pin_for_load({1});
  EXPECT_EQ(tier.reserve({3}), (std::vector<std::uint64_t>{3}));  // evicts 2, not the pinned 1
  EXPECT_TRUE(tier.present(1));
  EXPECT_FALSE(tier.present(2));
  EXPECT_FALSE(tier.ready(3));  // visible only once its write completes
}

TEST(OffloadTier, StoreThresholdWaitsForRepeatSightings) {
  OffloadTier tier(10, EvictionKind::kLru, 3);
  EXPECT_TRUE(tier.select_for_store({7}).empty());
  EXPECT_TRUE(tier.select_for_store({7}).empty());
  EXPECT_EQ(tier.select_for_store({7}), (std::vector<std::uint64_t>{7}));
}

TEST(LinkModel, HardwareModelIsPerCopyCostPlusBytesOverBandwidth) {
  // A GPU without a measured link (B200): the table's practical GB/s and 3.5 us per copy.
  const auto hw = resolve_hardware("b200");
  const auto p = link_profile_from_hardware(hw);
  const double b = 2.0 * 1024 * 1024;
  const double expected = 100 * (3.5e-6 + b / (hw.link_practical_gbps * 1e9));
  EXPECT_NEAR(p.h2d.seconds(100, b), expected, 1e-12);
  EXPECT_NEAR(p.d2h.seconds(100, b), expected, 1e-12);
  EXPECT_EQ(p.h2d.seconds(0, b), 0.0);
  // The H100's measured link (scenarios/hardware/h100.yaml): each direction its own fit.
  const auto h100 = link_profile_from_hardware(resolve_hardware("h100"));
  EXPECT_NEAR(h100.h2d.seconds(100, b), 100 * (2.724e-6 + b / 54.06e9), 1e-12);
  EXPECT_NEAR(h100.d2h.seconds(100, b), 100 * (2.160e-6 + b / 53.21e9), 1e-12);
}

TEST(LinkModel, ProfileIsFittedPerDirectionFromEveryBlockSize) {
  // Records built from t = 3 us + bytes / 50 GB/s (h2d) and 2 us + bytes / 40 GB/s (d2h): the fit
  // recovers both exactly, and the curve prices N blocks as N (t0 + B / bandwidth).
  std::vector<DmaRecord> records;
  for (const auto dir : {Direction::kH2D, Direction::kD2H}) {
    for (const double bytes : {4096.0, 65536.0, 2097152.0}) {
      DmaRecord r;
      r.tcase.method = Method::kCe;
      r.tcase.direction = dir;
      r.tcase.block_bytes = static_cast<std::uint64_t>(bytes);
      r.verified = true;
      r.device.backend = "cuda";
      r.device.name = "gpu";
      const double t = dir == Direction::kH2D ? 3e-6 + bytes / 50e9 : 2e-6 + bytes / 40e9;
      r.median_gbps = bytes / t / 1e9;
      records.push_back(r);
    }
  }
  const auto p = link_profile_from_dma_records(records, Method::kCe, "test.json");
  EXPECT_NEAR(p.h2d.gbps, 50, 1e-6);
  EXPECT_NEAR(p.h2d.per_copy_s, 3e-6, 1e-12);
  EXPECT_NEAR(p.d2h.gbps, 40, 1e-6);
  EXPECT_NEAR(p.d2h.per_copy_s, 2e-6, 1e-12);
  EXPECT_NEAR(p.h2d.seconds(1000, 65536), 1000 * (3e-6 + 65536 / 50e9), 1e-12);
  EXPECT_EQ(p.origin.figures, LinkFigures::kFitted);
  EXPECT_EQ(p.origin.file, "test.json");
  EXPECT_EQ(p.origin.block_sizes, 3u);
  // One block size cannot be fitted: exit 2 naming the file.
  records.erase(records.begin() + 1, records.begin() + 3);
  EXPECT_THROW((void)link_profile_from_dma_records(records, Method::kCe, "test.json"), UsageError);
}

}  // namespace
}  // namespace kvb

namespace kvb {
namespace {

TEST(FlatHashMap, AgreesWithStdMapUnderRandomInsertsAndErases) {
  FlatHashMap<std::int32_t> flat;
  std::map<std::uint64_t, std::int32_t> ref;
  Rng rng(9);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t key = rng.below(3000) * 16;  // clustered keys: long probe runs
    if (rng.uniform() < 0.55) {
      EXPECT_EQ(flat.emplace(key, i), ref.emplace(key, i).second);
    } else {
      EXPECT_EQ(flat.erase(key), ref.erase(key) > 0);
    }
  }
  EXPECT_EQ(flat.size(), ref.size());
  for (const auto& [k, v] : ref) {
    const auto* got = flat.find(k);
    ASSERT_NE(got, nullptr) << k;
    EXPECT_EQ(*got, v);
  }
  std::size_t visited = 0;
  flat.for_each([&](std::uint64_t k, std::int32_t) { visited += ref.count(k); });
  EXPECT_EQ(visited, ref.size());
}

}  // namespace
}  // namespace kvb
