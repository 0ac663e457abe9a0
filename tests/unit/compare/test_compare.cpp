// kvbench compare: the rank-sum test and shift against hand calculations, verdicts on synthetic
// samples with known shifts, and reading both kinds of input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compare/benchmark_set.hpp"
#include "compare/compare.hpp"
#include "compare/mann_whitney.hpp"
#include "core/errors.hpp"
#include "core/rng.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

TEST(MannWhitney, SeparatedSamplesOfThreeHaveExactPOneTenth) {
  // U = 0; of the C(6,3) = 20 equally likely orderings one has U = 0 and one U = 9: p = 2/20.
  const auto r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p_two_sided, 0.1, 1e-12);
}

TEST(MannWhitney, InterleavedSamplesMatchTheGaussianBinomialCounts) {
  // U counts for sizes (3,3) are the coefficients of [6 choose 3]_q: 1 1 2 3 3 3 3 2 1 1.
  // a = {1,3,5}, b = {2,4,6}: U = 3, P(U <= 3) = 7/20, two-sided 0.7.
  const auto r = mann_whitney_u({1, 3, 5}, {2, 4, 6});
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_NEAR(r.p_two_sided, 0.7, 1e-12);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximationByHand) {
  // a = 0..29, b = 15.5..44.5 (no ties): a value k >= 16 beats k - 15 values of b, so
  // U = 1 + ... + 14 = 105.
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(15.5 + i);
  }
  const auto r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 105);
  const double z = (450 - 105 - 0.5) / std::sqrt(30.0 * 30 * 61 / 12);  // mean 450, continuity 0.5
  EXPECT_NEAR(r.p_two_sided, std::erfc(z / std::sqrt(2.0)), 1e-12);
}

TEST(MannWhitney, AllTiedSamplesShowNoDifference) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({2, 2, 2, 2}, {2, 2, 2}).p_two_sided, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_two_sided, 1.0);
}

TEST(MannWhitney, NormalQuantileMatchesTables) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.05), -1.644854, 1e-6);
}

TEST(HodgesLehmann, RecoversAnExactShift) {
  std::vector<double> a, b;
  for (int i = 1; i <= 10; ++i) {
    a.push_back(i);
    b.push_back(i + 10);
  }
  const auto e = hodges_lehmann_shift(a, b, 0.95);
  EXPECT_DOUBLE_EQ(e.shift, 10);  // differences 10 + (j - i) are symmetric about 10
  EXPECT_LT(e.low, 10);
  EXPECT_GT(e.high, 10);
  EXPECT_GE(e.low, 1);
  EXPECT_LE(e.high, 19);
}

// Throughput samples: `level` x (1 + noise x N(0,1)).
std::vector<double> samples(std::uint64_t seed, std::size_t n, double level, double noise) {
  Rng rng(seed);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(level * std::max(0.05, 1 + noise * rng.normal()));
  return out;
}

// Every verdict must hold for many seeds, so none is a lucky draw.
void expect_verdict_for_seeds(double shift, double noise, std::size_t n, Verdict want) {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    const auto c = compare_samples(samples(seed, n, 100, noise),
                                   samples(seed + 1000, n, 100 * (1 + shift), noise), CompareSettings{});
    EXPECT_EQ(to_string(c.verdict), to_string(want)) << "seed " << seed << ": " << c.why;
  }
}

TEST(CompareVerdicts, NoShiftIsSame) { expect_verdict_for_seeds(0.0, 0.01, 30, Verdict::kSame); }
TEST(CompareVerdicts, SmallShiftBelowTheMinimumEffectIsSame) {
  expect_verdict_for_seeds(-0.015, 0.01, 30, Verdict::kSame);
}
TEST(CompareVerdicts, LargeDropIsSlower) { expect_verdict_for_seeds(-0.20, 0.02, 30, Verdict::kSlower); }
TEST(CompareVerdicts, LargeGainIsFaster) { expect_verdict_for_seeds(0.25, 0.02, 30, Verdict::kFaster); }
TEST(CompareVerdicts, NoisySamplesAreInconclusive) {
  // 30% noise, 8 samples, no true shift: never SAME (the data cannot rule out 5%), and a false
  // FASTER/SLOWER about as often as the test's 5% level allows: 2 of 40 expected, 4 (10%) at most
  // leaves room for binomial spread; a broken test (p-values too small) decides far more often.
  int decided = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto c =
        compare_samples(samples(seed, 8, 100, 0.3), samples(seed + 1000, 8, 100, 0.3), CompareSettings{});
    EXPECT_NE(c.verdict, Verdict::kSame) << "seed " << seed << ": " << c.why;
    if (c.verdict != Verdict::kInconclusive) ++decided;
  }
  EXPECT_LE(decided, 4);
}

TEST(CompareVerdicts, TooFewSamplesAreInconclusive) {
  const auto c = compare_samples({100, 101}, {50, 51}, CompareSettings{});
  EXPECT_EQ(c.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(c.change, 50.5 / 100.5 - 1, 1e-12);
}

TEST(CompareVerdicts, ChangeIsTheRatioOfMedians) {
  // head = 0.8 x base exactly: every log difference pair's median is ln 0.8.
  std::vector<double> base, head;
  for (int i = 0; i < 20; ++i) {
    base.push_back(100 + i);
    head.push_back(0.8 * (100 + i));
  }
  const auto c = compare_samples(base, head, CompareSettings{});
  EXPECT_NEAR(c.change, -0.2, 1e-9);
  EXPECT_EQ(c.verdict, Verdict::kSlower);
}

nlohmann::json gbench(const std::string& host,
                      const std::vector<std::pair<std::string, std::vector<double>>>& runs_ms) {
  nlohmann::json doc;
  doc["context"] = {{"host_name", host}, {"num_cpus", 2}};
  doc["benchmarks"] = nlohmann::json::array();
  for (const auto& [name, times] : runs_ms) {
    for (const double t : times) {
      doc["benchmarks"].push_back({{"name", name},
                                   {"run_name", name},
                                   {"run_type", "iteration"},
                                   {"real_time", t},
                                   {"cpu_time", t},
                                   {"time_unit", "ms"}});
    }
    // Aggregates repeat the data and must not become samples.
    doc["benchmarks"].push_back({{"name", name + "_mean"},
                                 {"run_name", name},
                                 {"run_type", "aggregate"},
                                 {"real_time", 999.0},
                                 {"time_unit", "ms"}});
  }
  return doc;
}

TEST(BenchmarkSet, GoogleBenchmarkRepetitionsBecomeRunsPerSecond) {
  const auto set = benchmark_set_from_json(gbench("ci", {{"BM_A", {2, 4, 5}}, {"BM_B", {10}}}), "g.json");
  ASSERT_EQ(set.entries.size(), 2u);
  EXPECT_EQ(set.kind, "Google Benchmark");
  EXPECT_EQ(set.entries[0].label, "BM_A");
  ASSERT_EQ(set.entries[0].samples.size(), 3u);        // the aggregate is not a sample
  EXPECT_DOUBLE_EQ(set.entries[0].samples[0], 500.0);  // 2 ms -> 500 runs/s
  EXPECT_DOUBLE_EQ(set.entries[0].samples[2], 200.0);
  EXPECT_DOUBLE_EQ(set.entries[1].samples[0], 100.0);
}

TEST(BenchmarkSet, WrongSchemaNamesTheFile) {
  try {
    benchmark_set_from_json(
        nlohmann::json{{"schema", "kvbench/size/v1"}, {"results", nlohmann::json::array()}}, "s.json");
    FAIL() << "accepted a size result";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json: schema 'kvbench/size/v1' cannot be compared"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(benchmark_set_from_json(nlohmann::json::array(), "a.json"), UsageError);
  // Malformed: a benchmark without real_time.
  auto bad = gbench("ci", {{"BM_A", {1}}});
  bad["benchmarks"][0].erase("real_time");
  EXPECT_THROW(benchmark_set_from_json(bad, "bad.json"), UsageError);
}

nlohmann::json host_profile() {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/host-dma-profile.json");
  return nlohmann::json::parse(in);
}

TEST(BenchmarkSet, DmaRecordsBecomeGigabytesPerSecondPerSample) {
  const auto doc = host_profile();
  const auto set = benchmark_set_from_json(doc, "p.json");
  EXPECT_EQ(set.kind, "kvbench dma");
  ASSERT_EQ(set.entries.size(), doc["records"].size());
  const auto& e = set.entries.front();
  EXPECT_EQ(e.label, "ce h2d 4 KiB");
  const auto& rec = doc["records"][0];
  ASSERT_EQ(e.samples.size(), rec["samples"].size());
  // bytes per transfer / seconds per transfer, in 10^9 B/s: 1000 blocks x 4096 B.
  EXPECT_DOUBLE_EQ(rec["bytes_per_transfer"].get<double>(), 4096000.0);
  EXPECT_DOUBLE_EQ(e.samples[0], 4096000.0 / rec["samples"][0].get<double>() / 1e9);
}

TEST(CompareSets, KindsMustMatchAndShareACase) {
  const auto g1 = benchmark_set_from_json(gbench("a", {{"BM_A", {1, 1, 1}}}), "g1.json");
  const auto g2 = benchmark_set_from_json(gbench("b", {{"BM_Z", {1, 1, 1}}}), "g2.json");
  const auto dma = load_benchmark_set(std::string(KVBENCH_TEST_DATA) + "/host-dma-profile.json");
  EXPECT_THROW(compare_sets(g1, dma, CompareSettings{}), UsageError);
  try {
    compare_sets(g1, g2, CompareSettings{});
    FAIL() << "no shared case accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("g1.json and g2.json share no case"), std::string::npos) << e.what();
  }
}

TEST(CompareSets, UnmatchedCasesAreListedNotCompared) {
  const auto base =
      benchmark_set_from_json(gbench("a", {{"BM_A", {1, 1.1, 1.2}}, {"BM_OLD", {1, 1, 1}}}), "b.json");
  const auto head =
      benchmark_set_from_json(gbench("a", {{"BM_A", {2, 2.2, 2.4}}, {"BM_NEW", {1, 1, 1}}}), "h.json");
  const auto c = compare_sets(base, head, CompareSettings{});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.only_base, std::vector<std::string>{"BM_OLD"});
  EXPECT_EQ(c.only_head, std::vector<std::string>{"BM_NEW"});
  EXPECT_NEAR(c.cases[0].change, -0.5, 1e-9);  // twice the time: half the runs per second
}

TEST(CompareSets, DuplicateIdentityIsRejected) {
  auto doc = host_profile();
  doc["records"].push_back(doc["records"][0]);
  try {
    benchmark_set_from_json(doc, "dup.json");
    FAIL() << "a case twice was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("dup.json: 'ce h2d 4 KiB' occurs twice"), std::string::npos)
        << e.what();
  }
  auto empty = nlohmann::json::parse(R"({"schema":"kvbench/dma/v1","records":[]})");
  EXPECT_THROW(benchmark_set_from_json(empty, "empty.json"), UsageError);
}

}  // namespace
}  // namespace kvb
