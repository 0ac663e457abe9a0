// The resolved server's JSON table: each key written once and read back as written.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "server/server_json.hpp"

namespace kvb {
namespace {

ResolvedServer every_field_set() {
  ResolvedServer s;
  s.model = "deepseek-v3";
  s.hf_id = "deepseek-ai/DeepSeek-V3";
  s.hardware = "h200";
  s.tensor_parallel_size = 2;
  s.pipeline_parallel_size = 3;
  s.data_parallel_size = 4;
  s.expert_parallel = true;
  s.max_model_len = 163840;
  s.max_num_batched_tokens = 8192;
  s.max_num_seqs = 1024;
  s.weight_dtype = "fp8";
  s.kv_cache_dtype = "fp8_ds_mla";
  s.block_size = 64;
  s.offloading_backend = OffloadingBackend::kLmcache;
  return s;
}

TEST(ServerJson, EveryFieldRoundTrips) {
  const ResolvedServer s = every_field_set();
  nlohmann::json doc;
  write_server_json(s, doc);
  EXPECT_EQ(read_server_json(doc, "test"), s);
  // Every key of the table is written when no field holds its absent-default.
  for (const auto& key : server_json_keys()) EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc.size(), server_json_keys().size());
}

TEST(ServerJson, OneEngineLeavesDataAndExpertParallelOut) {
  ResolvedServer s = every_field_set();
  s.data_parallel_size = 1;
  s.expert_parallel = false;
  nlohmann::json doc;
  write_server_json(s, doc);
  EXPECT_FALSE(doc.contains("data_parallel_size"));
  EXPECT_FALSE(doc.contains("expert_parallel"));
  EXPECT_EQ(read_server_json(doc, "test"), s);
}

TEST(ServerJson, AnOlderDocumentTakesTheDefaults) {
  // A simulate document from before the table wrote only these.
  const auto doc = nlohmann::json::parse(
      R"({"model": "llama-3.1-8b", "hardware": "h100", "tensor_parallel_size": 2, "weight_dtype": "bf16"})");
  const ResolvedServer s = read_server_json(doc, "old.json");
  EXPECT_EQ(s.tensor_parallel_size, 2);
  EXPECT_EQ(s.pipeline_parallel_size, 1);
  EXPECT_EQ(s.block_size, 16);
  EXPECT_EQ(s.max_num_seqs, 0);
  EXPECT_EQ(s.offloading_backend, OffloadingBackend::kNative);
}

TEST(ServerJson, OutOfRangeAndMissingAreRefused) {
  auto doc = nlohmann::json::parse(R"({"model": "m", "hardware": "h100", "tensor_parallel_size": 0})");
  EXPECT_THROW(read_server_json(doc, "bad.json"), UsageError);
  doc = nlohmann::json::parse(R"({"model": "m", "hardware": "h100", "kv_offloading_backend": "nvme"})");
  EXPECT_THROW(read_server_json(doc, "bad.json"), UsageError);
  doc = nlohmann::json::parse(R"({"hardware": "h100"})");
  EXPECT_THROW(read_server_json(doc, "bad.json"), nlohmann::json::exception);
}

}  // namespace
}  // namespace kvb
