// dma without a GPU: block maps, copy plans, statistics, the stopping rule, data patterns, block
// sizes and sysfs links (the host backend end to end: test_dma_host_backend.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/data_pattern.hpp"
#include "backend/verify.hpp"
#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/numa_binding.hpp"
#include "dma/block_sizes.hpp"
#include "dma/dma_json.hpp"
#include "dma/dma_record.hpp"
#include "dma/dma_sweep.hpp"
#include "dma/statistics.hpp"
#include "dma/sysfs_link.hpp"
#include "dma/transfer_backend.hpp"
#include "output/dma/dma_output.hpp"

using namespace kvb;

TEST(BlockMap, IdsAreDistinctInRangeAndSeeded) {
  const auto m = make_block_map(500, 2000, 700, 42);
  std::set<std::int64_t> g(m.gpu_ids.begin(), m.gpu_ids.end());
  std::set<std::int64_t> h(m.host_ids.begin(), m.host_ids.end());
  EXPECT_EQ(g.size(), 500u);
  EXPECT_EQ(h.size(), 500u);
  EXPECT_LT(*g.rbegin(), 2000);
  EXPECT_LT(*h.rbegin(), 700);
  EXPECT_EQ(make_block_map(500, 2000, 700, 42).gpu_ids, m.gpu_ids);
  EXPECT_NE(make_block_map(500, 2000, 700, 43).gpu_ids, m.gpu_ids);
  // A pool exactly the size of the transfer gives a permutation.
  auto p = make_block_map(64, 64, 64, 7).gpu_ids;
  std::sort(p.begin(), p.end());
  for (std::int64_t i = 0; i < 64; ++i) EXPECT_EQ(p[static_cast<std::size_t>(i)], i);
  EXPECT_THROW((void)make_block_map(65, 64, 64, 7), UsageError);
}

TEST(CopyOps, PerLayerSplitsEachBlockIntoLayerMajorFragments) {
  TransferCase c;
  c.block_bytes = 4096;
  c.blocks = 3;
  c.gpu_pool_blocks = 10;
  c.host_pool_blocks = 10;
  c.layout = Layout::kPerLayer;
  c.layers = 4;
  const auto map = make_block_map(3, 10, 10, 1);
  const auto ops = copy_ops(c, map, Direction::kD2H);
  ASSERT_EQ(ops.size(), 12u);
  std::uint64_t total = 0;
  for (const auto& op : ops) total += op.bytes;
  EXPECT_EQ(total, 3u * 4096);  // bytes are conserved
  // Layer 2 of the first block sits at (2 x 10 + id) x 1024 in the source (device) pool.
  EXPECT_EQ(ops[2].src_offset, (2u * 10 + static_cast<std::uint64_t>(map.gpu_ids[0])) * 1024);
}

TEST(Statistics, PercentilesMatchHandValues) {
  const auto s = summarize({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.p10, 1.9);  // 1 + 0.9 x (2 - 1)
  EXPECT_DOUBLE_EQ(s.p90, 9.1);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_NEAR(s.stddev, 3.0276503540974917, 1e-12);
}

TEST(StoppingRule, StopsOnceTheMedianIsPreciseOrAtACap) {
  StoppingRule rule;
  rule.warmups = 2;
  rule.min_samples = 10;
  rule.min_seconds = 0;
  rule.max_samples = 500;
  rule.max_seconds = 1e9;
  int calls = 0;
  const auto steady = run_until_stable(
      [&] {
        ++calls;
        return TimedRun{1.0, 1.0};
      },
      rule);
  EXPECT_TRUE(steady.converged);
  EXPECT_EQ(steady.runs.size(), 10u);
  EXPECT_EQ(calls, 12);  // warm-ups are not recorded
  EXPECT_EQ(steady.first_call, 2u);
  EXPECT_DOUBLE_EQ(steady.timed_seconds, 10.0);
  // Half the samples 1, half 2: the median's interval spans both, 50% of it, whatever n.
  int i = 0;
  auto noisy_run = [&] { return TimedRun{(++i % 2) ? 1.0 : 2.0, 0}; };
  rule.max_seconds = 1e9;
  const auto noisy = run_until_stable(noisy_run, rule);
  EXPECT_FALSE(noisy.converged);
  EXPECT_EQ(noisy.runs.size(), 500u);  // the sample cap
  EXPECT_GT(noisy.precision, 0.3);
  rule.max_seconds = 30;
  // The time cap counts the warm-ups: 2 warm-ups + 18 recorded runs of 1.5 s on average = 30 s.
  EXPECT_EQ(run_until_stable(noisy_run, rule).runs.size(), 18u);
  // Samples spread +-0.5% around 1: the interval is within +-1% at the first check, 10 samples.
  int k = 0;
  const auto tight = run_until_stable([&] { return TimedRun{1.0 + 0.005 * ((k++ % 3) - 1), 0}; }, rule);
  EXPECT_TRUE(tight.converged);
  EXPECT_EQ(tight.runs.size(), 10u);
  EXPECT_LE(tight.precision, 0.01);
}

// The ranks of the distribution-free interval, against binomial tables: n = 10 gives (x2, x9)
// since P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024; n = 20 gives (x6, x15); n = 100 gives
// (x40, x61); beyond 200 the normal approximation 200 - 1.96 x 10 = 180.4 for n = 400.
TEST(MedianInterval, RanksMatchBinomialTablesAndTheIntervalBracketsTheMedian) {
  EXPECT_EQ(median_interval_rank(5), 0u);
  EXPECT_EQ(median_interval_rank(6), 1u);
  EXPECT_EQ(median_interval_rank(10), 2u);
  EXPECT_EQ(median_interval_rank(20), 6u);
  EXPECT_EQ(median_interval_rank(100), 40u);
  EXPECT_EQ(median_interval_rank(400), 180u);
  const auto m = median_interval({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  ASSERT_TRUE(m.defined);
  EXPECT_DOUBLE_EQ(m.low, 2);
  EXPECT_DOUBLE_EQ(m.high, 9);
  EXPECT_DOUBLE_EQ(m.median, 5.5);
  EXPECT_DOUBLE_EQ(m.relative_half_width(), 3.5 / 5.5);
  EXPECT_FALSE(median_interval({1, 2, 3}).defined);
}

// Two members measuring at once: the one that converges first keeps running (unrecorded) until the
// other has its samples, and a member that leaves without measuring never blocks the rest.
TEST(ConcurrentGroup, FastMembersHoldTheLinkUntilEveryMemberIsDoneAndLeaversNeverBlock) {
  StoppingRule rule;
  rule.warmups = 1;
  rule.min_samples = 10;
  rule.max_samples = 40;
  rule.max_seconds = 1e9;
  ConcurrentGroup group(3);
  std::atomic<int> fast_calls{0}, slow_calls{0};
  RunResult fast, slow;
  std::thread a([&] {
    GroupTicket t(group);
    StoppingRule r = rule;
    r.group = &t;
    fast = run_until_stable(
        [&] {
          ++fast_calls;
          return TimedRun{1.0, 1.0};
        },
        r);
  });
  std::thread b([&] {
    GroupTicket t(group);
    StoppingRule r = rule;
    r.group = &t;
    int i = 0;  // never precise: runs to the sample cap
    slow = run_until_stable(
        [&] {
          ++slow_calls;
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          return TimedRun{(++i % 2) ? 1.0 : 2.0, 0};
        },
        r);
  });
  std::thread c([&] { GroupTicket t(group); });  // a waived member: leaves at once
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(fast.runs.size(), 10u);
  EXPECT_EQ(slow.runs.size(), 40u);
  EXPECT_GT(fast_calls.load(), 11);  // held the link after its 1 + 10 calls
  EXPECT_EQ(slow_calls.load(), 41);
}

TEST(TakeRuns, BidirSpansAreTheRecordedRunsOnlyNotWarmupsOrHeldRuns) {
  RunResult run;
  run.first_call = 2;
  run.runs = {{1, 1}, {2, 2}};
  run.converged = true;
  const std::vector<double> spans = {9, 9, 1, 2, 7};  // 2 warm-ups, 2 recorded, 1 held
  CaseResult r;
  take_runs(r, std::move(run), spans, spans);
  EXPECT_EQ(r.h2d_s, (std::vector<double>{1, 2}));
  EXPECT_EQ(r.d2h_s, (std::vector<double>{1, 2}));
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.runs.size(), 2u);
}

// NaN fails every comparison and infinity passes "> 0": both once slipped through as a rule that
// never stops or never converges.
TEST(StoppingRule, ValidationNamesTheFlagAndRefusesNonFiniteValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NO_THROW(validate_stopping_rule(StoppingRule{}));
  const auto refused_naming = [](StoppingRule r, const std::string& flag) {
    try {
      validate_stopping_rule(r);
    } catch (const UsageError& e) {
      return std::string(e.what()).find(flag) == 0;
    }
    return false;
  };
  StoppingRule r;
  r.precision = nan;
  EXPECT_TRUE(refused_naming(r, "--precision"));
  r.precision = 1.5;
  EXPECT_TRUE(refused_naming(r, "--precision"));
  r = StoppingRule{};
  r.max_seconds = inf;
  EXPECT_TRUE(refused_naming(r, "--max-time"));
  r.min_seconds = 0.5;
  r.max_seconds = 0.1;  // below --min-time
  EXPECT_TRUE(refused_naming(r, "--max-time"));
  r = StoppingRule{};
  r.min_seconds = nan;
  EXPECT_TRUE(refused_naming(r, "--min-time"));
  r = StoppingRule{};
  r.min_samples = 0;
  EXPECT_TRUE(refused_naming(r, "--min-samples"));
  r = StoppingRule{};
  r.warmups = -1;
  EXPECT_TRUE(refused_naming(r, "--warmups"));
}

// The GPU backend uploads its device pool's pattern in pieces; a piece must read exactly as the
// same bytes of a pool filled at once, and verification must see a misplaced piece.
TEST(DataPattern, FilledInPiecesEqualsFilledAtOnceAndVerificationSeesAShift) {
  const std::uint64_t bytes = 4096;
  std::vector<unsigned char> whole(bytes), pieces(bytes);
  fill_pattern(whole.data(), bytes, 7, 0);
  fill_pattern(pieces.data(), 1024, 7, 0, 0);
  fill_pattern(pieces.data() + 1024, bytes - 1024, 7, 0, 1024);
  EXPECT_EQ(whole, pieces);
  const std::vector<CopyOp> copy_all{CopyOp{0, 0, bytes}};
  EXPECT_EQ(verify_copies(copy_all, pieces.data(), 7, 0), "");
  fill_pattern(pieces.data() + 1024, bytes - 1024, 7, 0, 0);  // the second piece from the wrong offset
  EXPECT_NE(verify_copies(copy_all, pieces.data(), 7, 0).find("byte 1024 differs"), std::string::npos);
}

TEST(BlockSizes, ListsRangesAndBadInput) {
  EXPECT_EQ(parse_block_sizes("4KiB..32KiB"), (std::vector<std::uint64_t>{4096, 8192, 16384, 32768}));
  EXPECT_EQ(parse_block_sizes("4KB,2MiB"), (std::vector<std::uint64_t>{4000, 2097152}));
  EXPECT_THROW((void)parse_block_sizes("64KiB..4KiB"), UsageError);
  // 4 KiB doubled reaches 2 MiB and then 4 MiB, never 3 MiB: refused, not cut at 2 MiB.
  EXPECT_THROW((void)parse_block_sizes("4KiB..3MiB"), UsageError);
  EXPECT_EQ(parse_block_sizes("2MiB..2MiB"), (std::vector<std::uint64_t>{2097152}));
  EXPECT_THROW((void)parse_block_sizes("0"), UsageError);
  EXPECT_THROW((void)parse_block_sizes("4QB"), UsageError);
}

TEST(SysfsLink, ParsesKernelStrings) {
  const auto l = parse_pcie_link("32.0 GT/s PCIe", "16");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->generation, 5);
  EXPECT_NEAR(l->ceiling_gbps, 63.015, 0.01);
  EXPECT_FALSE(parse_pcie_link("Unknown", "16"));
  EXPECT_FALSE(parse_pcie_link("16.0 GT/s PCIe", "3"));
}
