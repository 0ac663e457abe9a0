// Scenario files: strict keys and types, every error naming the file and the key.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "sim/scenario.hpp"
#include "sim/server_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace kvb {
namespace {

const std::string kGood = R"(
name: good
model: llama-3.1-8b
workload:
  requests: 10
  arrival: {process: poisson, rate: 2}
  prompt: {distribution: lognormal, median: 500, sigma: 0.5, max: 4000}
)";

std::string error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "bad.yaml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Scenario, ReadsAGoodFile) {
  const auto s = parse_scenario(kGood, "good.yaml");
  EXPECT_EQ(s.name, "good");
  EXPECT_EQ(s.workload.requests, 10);
  EXPECT_EQ(s.workload.arrival.rate, 2);
  EXPECT_EQ(s.workload.prompt.kind, Distribution::Kind::kLognormal);
  EXPECT_FALSE(s.server.kv_offloading_size.has_value());
}

TEST(Scenario, BadFilesNameTheKeyAndFile) {
  const auto unknown = error_of(kGood + "kv-offload-size: 16\n");
  EXPECT_NE(unknown.find("bad.yaml"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("'kv-offload-size'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("did you mean 'kv-offloading-size'"), std::string::npos) << unknown;

  const auto wrong_type = error_of(kGood + "max-num-seqs: lots\n");
  EXPECT_NE(wrong_type.find("'max-num-seqs'"), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("integer"), std::string::npos) << wrong_type;

  std::string negative = kGood;
  negative.replace(negative.find("rate: 2"), 7, "rate: -3");
  const auto neg = error_of(negative);
  EXPECT_NE(neg.find("'rate' must be > 0"), std::string::npos) << neg;

  std::string no_model = kGood;
  no_model.replace(no_model.find("model: llama-3.1-8b"), 19, "");
  EXPECT_NE(error_of(no_model).find("missing required key 'model'"), std::string::npos);

  EXPECT_NE(error_of("model: [unclosed\n").find("malformed YAML"), std::string::npos);
  std::string bad_dist = kGood;
  bad_dist.replace(bad_dist.find("lognormal"), 9, "gaussian");
  EXPECT_NE(error_of(bad_dist).find("unknown distribution 'gaussian'"), std::string::npos);
  EXPECT_NE(error_of(kGood + "eviction-policy: fifo\n").find("expected lru, arc"), std::string::npos);
  EXPECT_NE(error_of(kGood + "kv-offloading-size: -1\n").find("'kv-offloading-size' must be >= 0"),
            std::string::npos);
}

TEST(Scenario, OverridesReachNestedKeysAndAreRevalidated) {
  const auto s = parse_scenario(kGood, "good.yaml");
  const auto t = with_override(s, "workload.arrival.rate", "8", "--set");
  EXPECT_EQ(t.workload.arrival.rate, 8);
  EXPECT_EQ(s.workload.arrival.rate, 2);  // the original is untouched
  const auto u = with_override(s, "kv-offloading-size", "64", "--sweep");
  EXPECT_EQ(u.server.kv_offloading_size.value_or(-1), 64);
  const auto v = with_override(u, "kv-offloading-size", "null", "--sweep");
  EXPECT_FALSE(v.server.kv_offloading_size.has_value());
  try {
    with_override(s, "workload.arival.rate", "8", "--sweep");
    FAIL() << "an unknown nested key was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--sweep workload.arival.rate=8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'arival'"), std::string::npos) << e.what();
  }
}

// A server with every field away from its default: what flags can set, the document can hold.
ServerSpec every_field_set() {
  ServerSpec v;
  v.model = "llama-3.1-70b";
  v.hardware = "h200";
  v.tensor_parallel_size = 4;
  v.pipeline_parallel_size = 2;
  v.gpu_memory_utilization = 0.85;
  v.kv_cache_memory = 40ULL << 30;
  v.num_gpu_blocks_override = 1234;
  v.block_size = 32;
  v.kv_cache_dtype = "fp8";
  v.max_model_len = 65536;
  v.max_num_batched_tokens = 4096;
  v.max_num_seqs = 128;
  v.enable_prefix_caching = false;
  v.kv_offloading_size = 96.5;
  v.kv_offloading_backend = OffloadingBackend::kLmcache;
  v.quantization = Quantization::kFp8;
  v.draft_layers = 1;
  v.hybrid_kv_cache_manager = false;
  v.eviction_policy = EvictionKind::kArc;
  v.store_threshold = 2;
  v.link_method = Method::kKernel;
  v.vllm_version = VllmVersion{0, 19, 1};
  v.tier_costs = TierCostSet::none().with(TierCost::kLoadConvoy);
  v.secondary_tier_size = 500;
  v.secondary_read_gbps = 6.5;
  v.secondary_write_gbps = 3.25;
  v.secondary_latency_us = 80;
  v.secondary_rates_source = "storage.json (tier chunk 2.00 MiB)";
  v.secondary_eviction_policy = EvictionKind::kArc;
  v.kv_offloading_medium = OffloadMedium::kFile;
  return v;
}

using test::emitted;

TEST(Scenario, EveryServerFieldSurvivesTheDocumentAndLaterOverrides) {
  const auto base = parse_scenario(kGood, "good.yaml");
  const auto wanted = every_field_set();
  const auto s = with_server(base, wanted);
  EXPECT_EQ(emitted(s.server), emitted(wanted));
  EXPECT_EQ(s.server.quantization, Quantization::kFp8);
  EXPECT_EQ(s.server.pipeline_parallel_size, 2);
  EXPECT_EQ(*s.server.kv_cache_memory, 40ULL << 30);
  EXPECT_EQ(to_string(s.server.vllm_version), "0.19.1");
  EXPECT_EQ(s.server.tier_costs, TierCostSet::none().with(TierCost::kLoadConvoy));
  EXPECT_EQ(*s.server.secondary_tier_size, 500);
  EXPECT_EQ(s.server.secondary_eviction_policy, EvictionKind::kArc);
  EXPECT_EQ(s.server.kv_offloading_medium, OffloadMedium::kFile);
  // A sweep point reads its one key: the server set from flags is still the one simulated.
  const auto point = with_override(s, "workload.requests", "20", "--sweep");
  EXPECT_EQ(emitted(point.server), emitted(wanted));
  EXPECT_EQ(point.workload.requests, 20);
  // No CPU tier and TP auto are written too (null, "auto").
  auto plain = wanted;
  plain.kv_offloading_size.reset();
  plain.tensor_parallel_auto = true;
  plain.tier_costs = TierCostSet::none();
  const auto back = with_server(base, plain);
  EXPECT_EQ(back.server.tier_costs, TierCostSet::none());  // an empty list, not "all"
  EXPECT_FALSE(back.server.kv_offloading_size.has_value());
  EXPECT_TRUE(back.server.tensor_parallel_auto);
}

TEST(Scenario, SweepAxisSyntax) {
  const auto a = parse_sweep_axis("kv-offloading-size=0,16,64");
  EXPECT_EQ(a.key, "kv-offloading-size");
  EXPECT_EQ(a.values, (std::vector<std::string>{"0", "16", "64"}));
  EXPECT_THROW(parse_sweep_axis("kv-offloading-size"), UsageError);
  EXPECT_THROW(parse_sweep_axis("=1,2"), UsageError);
  EXPECT_THROW(parse_sweep_axis("k=1,,2"), UsageError);
}

// A lognormal's median (an exponential's mean) outside its clip range would make every draw the
// bound: refused, naming the key.
TEST(Scenario, ADistributionsCentreMustLieWithinItsClip) {
  const std::string head =
      "name: t\nmodel: llama-3.1-8b\nworkload:\n  requests: 10\n  arrival: {process: poisson, rate: 1}\n  "
      "output: 10\n";
  EXPECT_NO_THROW(
      parse_scenario(head + "  prompt: {distribution: lognormal, median: 180, max: 4000}\n", "t.yaml"));
  try {
    (void)parse_scenario(head + "  prompt: {distribution: lognormal, median: 180, max: 10}\n", "t.yaml");
    ADD_FAILURE() << "median 180 above max 10 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("median 180 lies outside min 0 .. max 10"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_scenario(head + "  prompt: {distribution: exponential, mean: 5, min: 10}\n", "t.yaml"),
               UsageError);
}

TEST(Scenario, ShippedScenariosAllLoad) {
  const auto names = shipped_scenario_names();
  EXPECT_GE(names.size(), 4u);
  for (const auto& n : names) EXPECT_NO_THROW(load_scenario(n)) << n;
  EXPECT_THROW(load_scenario("chat-multi-tern"), UsageError);
}

}  // namespace
}  // namespace kvb
