// dma without a GPU: block maps, copy plans, statistics, the stopping rule, the host backend's
// verified copies, and the JSON round trip.
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
#include "output/dma_output.hpp"

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

namespace {
TransferCase small_case(Direction d, Method m, Layout layout = Layout::kContiguous) {
  TransferCase c;
  c.direction = d;
  c.method = m;
  c.layout = layout;
  c.layers = layout == Layout::kPerLayer ? 8 : 1;
  c.block_bytes = 16384;
  c.blocks = 64;
  c.gpu_pool_blocks = 256;
  c.host_pool_blocks = 200;
  c.ctas = 2;
  return c;
}
StoppingRule quick() {
  StoppingRule r;
  r.warmups = 1;
  r.min_samples = 3;
  r.min_seconds = 0;
  r.max_seconds = 0.2;
  return r;
}
}  // namespace

TEST(HostBackend, EveryMethodAndDirectionVerifies) {
  auto b = make_host_backend();
  for (auto d : {Direction::kH2D, Direction::kD2H, Direction::kBidir}) {
    for (auto m : {Method::kCe, Method::kKernel}) {
      for (auto layout : {Layout::kContiguous, Layout::kPerLayer}) {
        const auto r = b->measure(small_case(d, m, layout), quick());
        EXPECT_FALSE(r.waived);
        EXPECT_TRUE(r.verified) << to_string(d) << " " << to_string(m) << ": " << r.verify_detail;
        EXPECT_GE(r.runs.size(), 3u);
        if (d == Direction::kBidir) {
          ASSERT_EQ(r.h2d_s.size(), r.runs.size());
          // The pair's span is the union of the two directions' spans: never shorter than either.
          for (std::size_t i = 0; i < r.runs.size(); ++i) {
            EXPECT_GE(r.runs[i].device_s, std::max(r.h2d_s[i], r.d2h_s[i]));
          }
        }
      }
    }
  }
  EXPECT_TRUE(b->measure(small_case(Direction::kH2D, Method::kCeBatch), quick()).waived);
}

TEST(DmaRecord, GbpsFromBytesOverMedianAndJsonRoundTrip) {
  TransferCase c = small_case(Direction::kBidir, Method::kCe);
  CaseResult r;
  r.runs = {{0.002, 0.0021}, {0.001, 0.0011}, {0.004, 0.0041}};
  r.h2d_s = {0.002, 0.001, 0.004};
  r.d2h_s = {0.002, 0.001, 0.004};
  r.verified = true;
  DeviceInfo dev;
  dev.backend = "host";
  dev.name = "<script>x</script>";
  dev.link_ceiling_gbps = 63.0;
  const auto rec = make_record(c, dev, "cpu", r);
  const double bytes = 2.0 * 16384 * 64;
  EXPECT_DOUBLE_EQ(rec.median_gbps, bytes / 0.002 / 1e9);
  EXPECT_DOUBLE_EQ(rec.p90_gbps, bytes / (0.001 + 0.2 * 0.001) / 1e9);  // p10 of time
  EXPECT_DOUBLE_EQ(rec.h2d_gbps, 16384.0 * 64 / 0.002 / 1e9);
  const auto back = dma_records_from_json(dma_json({rec}), "mem");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].id, rec.id);
  EXPECT_EQ(back[0].samples_s, rec.samples_s);
  EXPECT_DOUBLE_EQ(back[0].median_gbps, rec.median_gbps);
  EXPECT_EQ(back[0].device.name, dev.name);
  EXPECT_THROW((void)dma_records_from_json(nlohmann::json{{"schema", "kvbench/size/v1"}}, "x.json"),
               UsageError);
}

// bidir: the pair's figure is both directions' bytes over the union of their spans. Directions
// that overlap give a pair figure above either; directions that ran one after the other give less,
// and the table marks that row instead of printing a sum below its parts unexplained.
TEST(DmaTable, BidirPairBelowEitherDirectionIsMarked) {
  TransferCase c = small_case(Direction::kBidir, Method::kCe);
  DeviceInfo dev;
  dev.backend = "host";
  CaseResult together;
  together.runs = {{0.002, 0.002}, {0.002, 0.002}, {0.002, 0.002}};
  together.h2d_s = together.d2h_s = {0.002, 0.002, 0.002};
  together.verified = true;
  CaseResult apart = together;
  apart.runs = {{0.004, 0.004}, {0.004, 0.004}, {0.004, 0.004}};  // union = the two spans end to end
  apart.h2d_s = apart.d2h_s = {0.0015, 0.0015, 0.0015};
  const auto ok = make_record(c, dev, "cpu", together);
  EXPECT_GT(ok.median_gbps, std::max(ok.h2d_gbps, ok.d2h_gbps));
  EXPECT_EQ(dma_table({ok}).find(" !"), std::string::npos);
  const auto bad = make_record(c, dev, "cpu", apart);
  EXPECT_LT(bad.median_gbps, bad.h2d_gbps);
  const auto table = dma_table({bad});
  EXPECT_NE(table.find(" !"), std::string::npos);
  EXPECT_NE(table.find("spans barely overlapped"), std::string::npos);
}

// --numa-node: where NUMA policies work, pages allocated under the binding land on the node and
// a node that does not exist is refused; where they do not, every node is refused.
TEST(NumaBinding, PagesLandOnTheBoundNodeOrTheOptionIsRefused) {
  if (!kvb::numa_supported()) {
    EXPECT_THROW(kvb::validate_numa_node(0, "--numa-node"), kvb::UsageError);
    return;
  }
  EXPECT_NO_THROW(kvb::validate_numa_node(0, "--numa-node"));
  EXPECT_THROW(kvb::validate_numa_node(4096, "--numa-node"), kvb::UsageError);
  EXPECT_THROW(kvb::validate_numa_node(-2, "--numa-node"), kvb::UsageError);
  std::vector<unsigned char> pages;
  {
    kvb::ScopedNumaBind bind(0, true);
    pages.assign(1 << 20, 1);  // allocated and first touched under the binding
  }
  EXPECT_EQ(kvb::numa_node_of(pages.data()), 0);
  EXPECT_EQ(kvb::numa_node_of(pages.data() + pages.size() - 1), 0);
}

// --with-compute on the host backend: the load's rates are measured and the slowdown is their
// ratio; the case is a separate identity, and the figures survive the JSON round trip.
TEST(WithCompute, HostBackendMeasuresTheLoadAloneAndDuringTheCopies) {
  std::string notice;
  auto backend = kvb::make_backend(kvb::BackendKind::kHost, 0, notice);
  kvb::TransferCase c;
  c.direction = kvb::Direction::kH2D;
  c.method = kvb::Method::kCe;
  c.block_bytes = 64 * 1024;
  c.blocks = 64;
  c.gpu_pool_blocks = c.host_pool_blocks = 256;
  c.with_compute = true;
  kvb::StoppingRule rule;
  rule.min_seconds = 0.05;
  rule.max_seconds = 0.3;
  rule.min_samples = 3;
  rule.warmups = 1;
  const auto rec = kvb::make_record(c, backend->info(), "cpu", backend->measure(c, rule));
  EXPECT_TRUE(rec.verified);
  EXPECT_GT(rec.compute_alone_per_s, 0);
  EXPECT_GT(rec.compute_during_per_s, 0);
  EXPECT_DOUBLE_EQ(rec.compute_slowdown, rec.compute_alone_per_s / rec.compute_during_per_s);
  EXPECT_NE(rec.id.find("/+compute"), std::string::npos);
  c.with_compute = false;
  EXPECT_NE(c.id(), rec.id);
  const auto back = kvb::dma_records_from_json(kvb::dma_json({rec}), "x.json");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].tcase.with_compute);
  EXPECT_DOUBLE_EQ(back[0].compute_slowdown, rec.compute_slowdown);
  EXPECT_EQ(back[0].compute_load, rec.compute_load);
}

// The link a GPU's figures are held against: sysfs when it has the PCIe link, the hardware
// table for NVLink-C2C superchips and for VMs that hide the link, and unknown otherwise.
