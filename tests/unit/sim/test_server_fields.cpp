// The one table of server fields (sim/server_fields.hpp): a flag and a scenario key of the same
// field read the same value, every key is known to the scenario reader, and nothing is listed twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "server/server_json.hpp"
#include "sim/scenario.hpp"
#include "sim/server_fields.hpp"
#include "sim/server_yaml.hpp"
#include "size/sizing_inputs.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

// Every field with a flag, set away from its default.
ServerSpec flagged_fields_set() {
  ServerSpec v;
  v.tensor_parallel_size = 4;
  v.pipeline_parallel_size = 2;
  v.data_parallel_size = 2;
  v.enable_expert_parallel = true;
  v.gpu_memory_utilization = 0.85;
  v.kv_cache_memory = 40ULL << 30;
  v.block_size = 32;
  v.kv_cache_dtype = "fp8";
  v.max_model_len = 65536;
  v.max_num_batched_tokens = 4096;
  v.max_num_seqs = 128;
  v.kv_offloading_size = 96.5;
  v.kv_offloading_backend = OffloadingBackend::kLmcache;
  v.quantization = Quantization::kFp8;
  v.draft_layers = 1;
  v.hybrid_kv_cache_manager = false;
  v.link_method = Method::kKernel;
  v.vllm_version = VllmVersion{0, 19, 1};
  v.secondary_tier_size = 500;
  v.secondary_read_gbps = 6.5;
  v.secondary_write_gbps = 3.25;
  v.secondary_latency_us = 80;
  v.kv_offloading_medium = OffloadMedium::kCpuAndFile;
  return v;
}

using test::emitted;

TEST(ServerFields, EachFlagReadsWhatItsKeyWrites) {
  // The key's written value, given as the flag's text (a switch: given when the key is off),
  // onto a server at the defaults: every field with a flag comes back as set.
  const auto wanted = flagged_fields_set();
  const auto doc = server_to_yaml(wanted);
  ServerSpec from_flags;
  int flags = 0;
  for (const auto& f : server_fields()) {
    if (f.from_flag == nullptr) continue;
    ++flags;
    const auto text = doc[f.key].as<std::string>();
    if (f.is_switch) {
      // hybrid-kv-cache-manager: off is the flag given; enable-expert-parallel: on is.
      ASSERT_EQ(text, f.key == "enable-expert-parallel" ? "true" : "false") << f.key;
      f.from_flag("on", from_flags);
    } else {
      f.from_flag(text, from_flags);
    }
  }
  // vLLM's 16 sizing flags, the copy method, the release, the secondary tier's 4, the tier's medium
  EXPECT_EQ(flags, 23);
  from_flags.model = wanted.model;
  from_flags.hardware = wanted.hardware;
  EXPECT_EQ(emitted(from_flags), emitted(wanted));
}

TEST(ServerFields, EveryKeyIsAServerKeyOnceAndEveryFlagHasHelp) {
  std::set<std::string> keys, names;
  for (const auto& f : server_fields()) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key << " listed twice";
    EXPECT_TRUE(is_server_key(f.key)) << f.key;
    ASSERT_NE(f.from_yaml, nullptr) << f.key;
    ASSERT_NE(f.to_yaml, nullptr) << f.key;
    if (f.from_flag == nullptr) continue;
    EXPECT_FALSE(f.help.empty()) << f.key;
    EXPECT_EQ(f.flags.rfind("--", 0), 0u) << f.key;
    EXPECT_TRUE(names.insert(f.flags).second) << f.flags;
  }
  EXPECT_FALSE(is_server_key("workload"));
}

// trace and report take only the fields marked sizes_pool (cli/server_flags): every other flag,
// given all together at flagged_fields_set's values, leaves a sizing's GPU pool, a token's KV
// bytes and the CPU block's bytes (trace's bytes per token) as vLLM's defaults have them.
TEST(ServerFields, AFieldOutsideThePoolLeavesThePoolAndTheKvBytesAlone) {
  const auto doc = server_to_yaml(flagged_fields_set());
  ServeSettings given;
  int outside = 0;
  for (const auto& f : server_fields()) {
    if (f.from_flag == nullptr || f.sizes_pool) continue;
    ++outside;
    f.from_flag(doc[f.key].as<std::string>(), given);
  }
  // the CPU tier's size, the copy method, the secondary tier's 4 and the tier's medium
  EXPECT_EQ(outside, 7);
  for (const char* name : {"llama-3.1-8b", "gpt-oss-120b"}) {
    ServeSettings plain;
    plain.tensor_parallel_auto = given.tensor_parallel_auto = true;
    const auto hw = resolve_hardware("h100");
    const auto a = compute_sizing(make_sizing_inputs(test::model(name), hw, plain));
    const auto b = compute_sizing(make_sizing_inputs(test::model(name), hw, given));
    EXPECT_EQ(a.num_gpu_blocks, b.num_gpu_blocks) << name;
    EXPECT_EQ(a.gpu_kv_tokens, b.gpu_kv_tokens) << name;
    EXPECT_EQ(a.layout.kv_bytes_per_token(), b.layout.kv_bytes_per_token()) << name;
    ASSERT_TRUE(a.offload && b.offload) << name;
    EXPECT_EQ(a.offload->cpu_block_bytes, b.offload->cpu_block_bytes) << name;
  }
}

// The server's JSON keys (server/server_json) are the resolved server, the scenario's keys the server as
// asked: each JSON key is its field's scenario key in snake case, but for what only resolving gives
// (the Hugging Face id; the weights' dtype, from --quantization) and --enable-expert-parallel's fact.
TEST(ServerFields, EachJsonKeyIsItsFieldsScenarioKey) {
  std::set<std::string> keys;
  for (const auto& f : server_fields()) keys.insert(f.key);
  const std::set<std::string> resolved_only = {"hf_id", "weight_dtype"};
  for (std::string key : server_json_keys()) {
    if (resolved_only.count(key)) continue;
    std::replace(key.begin(), key.end(), '_', '-');
    if (key == "expert-parallel") key = "enable-expert-parallel";
    EXPECT_TRUE(keys.count(key)) << key << " has no scenario key of the same name";
  }
}

}  // namespace
}  // namespace kvb
