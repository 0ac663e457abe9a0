// Overrides of a typed scenario (sim/scenario_overrides.cpp): one key read onto the field it names,
// by that key's reader; every other field kept as it was, whether read from the file or set since.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "sim/scenario.hpp"

namespace kvb {
namespace {

const std::string kFile = R"(
name: over
model: llama-3.1-8b
max-num-seqs: 64
calibration: {compute-efficiency: 0.6, step-overhead-us: 300}
workload:
  requests: 10
  arrival: {process: poisson, rate: 2}
  prompt: {distribution: lognormal, median: 500, sigma: 0.5, max: 4000}
sweep:
  kv-offloading-size: [0, 16]
  workload.requests: [5, 10]
)";

Scenario file() { return parse_scenario(kFile, "over.yaml"); }

std::string error_of(const Scenario& s, const std::string& key, const std::string& value) {
  try {
    (void)with_override(s, key, value, "--set");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioOverrides, OneKeyIsReadAndEveryOtherFieldKept) {
  auto s = file();
  s.server.store_threshold = 5;                    // set on the typed scenario, in no file
  s.workload.think_time = Distribution::fixed(3);  // likewise
  const auto t = with_override(s, "workload.requests", "20", "--set");
  EXPECT_EQ(t.workload.requests, 20);
  EXPECT_EQ(t.server.store_threshold, 5);
  EXPECT_EQ(t.workload.think_time.value, 3);
  EXPECT_EQ(t.server.max_num_seqs.value_or(0), 64);
  EXPECT_EQ(s.workload.requests, 10);  // the original untouched
}

TEST(ScenarioOverrides, ADottedKeyEditsOneKeyOfTheArrivalOrADistribution) {
  const auto s = file();
  const auto t = with_override(s, "workload.prompt.median", "600", "--set");
  EXPECT_EQ(t.workload.prompt.kind, Distribution::Kind::kLognormal);
  EXPECT_EQ(t.workload.prompt.median, 600);
  EXPECT_EQ(t.workload.prompt.sigma, 0.5);  // the siblings as the file gave them
  EXPECT_EQ(t.workload.prompt.max, 4000);
  const auto closed = with_override(s, "workload.arrival", "{process: closed, users: 4}", "--set");
  const auto more = with_override(closed, "workload.arrival.users", "8", "--set");
  EXPECT_EQ(more.workload.arrival.process, ArrivalProcess::kClosed);
  EXPECT_EQ(more.workload.arrival.users, 8);
  // A closed loop has no rate: refused by the arrival's own reader, naming the flag and the key.
  const auto e = error_of(closed, "workload.arrival.rate", "3");
  EXPECT_NE(e.find("--set workload.arrival.rate=3: "), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'rate'"), std::string::npos) << e;
}

TEST(ScenarioOverrides, ErrorsAreTheKeysReadersOwn) {
  const auto s = file();
  EXPECT_EQ(error_of(s, "workload.requests", "-5")
                .rfind("--set workload.requests=-5: over.yaml (workload): key 'requests' must be", 0),
            0u)
      << error_of(s, "workload.requests", "-5");
  EXPECT_NE(error_of(s, "max-num-seqs", "0").find("--set max-num-seqs=0: over.yaml: key 'max-num-seqs'"),
            std::string::npos);
  EXPECT_NE(error_of(s, "seed.x", "1").find("--set seed.x: 'seed' is not a mapping in over.yaml"),
            std::string::npos);
  EXPECT_NE(error_of(s, "workload.requests.x", "1").find("'requests' is not a mapping"), std::string::npos);
  EXPECT_NE(error_of(s, "kv-offload", "1").find("over.yaml: unknown key 'kv-offload'"), std::string::npos);
  // The checks across the workload's keys run for one key too.
  EXPECT_NE(error_of(s, "workload.documents", "5").find("'document-tokens' is missing or 0"),
            std::string::npos);
}

TEST(ScenarioOverrides, CalibrationAndSweepKeysEditOneFigureOrOneAxis) {
  const auto s = file();
  const auto t = with_override(s, "calibration.memory-efficiency", "0.7", "--set");
  ASSERT_TRUE(t.calibration.has_value());
  EXPECT_EQ(t.calibration->memory_efficiency, 0.7);
  EXPECT_EQ(t.calibration->compute_efficiency, 0.6);
  EXPECT_EQ(t.calibration->step_overhead_s, s.calibration->step_overhead_s);  // to the bit
  EXPECT_NE(error_of(s, "calibration.compute-efficiency", "2").find("key 'compute-efficiency' is 2"),
            std::string::npos);
  const auto u = with_override(s, "sweep.kv-offloading-size", "[0, 8, 32]", "--set");
  ASSERT_EQ(u.sweep.size(), 2u);
  EXPECT_EQ(u.sweep[0].key, "kv-offloading-size");  // replaced where it was
  EXPECT_EQ(u.sweep[0].values, (std::vector<std::string>{"0", "8", "32"}));
  const auto v = with_override(u, "sweep.seed", "[1, 2]", "--set");
  ASSERT_EQ(v.sweep.size(), 3u);
  EXPECT_EQ(v.sweep[2].key, "seed");
}

TEST(ScenarioOverrides, AServerIsCheckedAsTheFilesKeysAreAndTheFileKeysKept) {
  const auto s = file();
  EXPECT_EQ(s.file_keys,
            (std::vector<std::string>{"name", "model", "max-num-seqs", "calibration", "workload", "sweep"}));
  auto server = s.server;
  server.tensor_parallel_size = 100'000;
  try {
    (void)with_server(s, server);
    ADD_FAILURE() << "a TP of 100000 was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("over.yaml: key 'tensor-parallel-size'"), std::string::npos)
        << e.what();
  }
  server.tensor_parallel_size = 2;
  const auto t = with_server(s, server);
  EXPECT_EQ(t.server.tensor_parallel_size, 2);
  EXPECT_EQ(t.file_keys, s.file_keys);  // what the file wrote, for size --workload's warning
  EXPECT_EQ(with_override(t, "tensor-parallel-size", "auto", "--set").server.tensor_parallel_auto, true);
  EXPECT_EQ(with_override(with_override(t, "tensor-parallel-size", "auto", "--set"), "tensor-parallel-size",
                          "4", "--set")
                .server.tensor_parallel_auto,
            false);
}

}  // namespace
}  // namespace kvb
