// A sizing holds one ResolvedServer: vLLM's batch defaults on the GPU taken once, and the size
// document writes and reads that server through server/server_json's table, field for field.
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "server/server_json.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

Sizing sized(const std::string& model, const std::string& hw, const ServeSettings& serve) {
  return compute_sizing(make_sizing_inputs(test::model(model), resolve_hardware(hw), serve));
}

ServeSettings at_32k() {
  ServeSettings serve;
  serve.max_model_len = 32768;
  return serve;
}

// vllm/engine/arg_utils.py get_batch_defaults: 8,192 tokens and 1,024 sequences on a GPU of 70 GiB
// or more that is not an A100 (the H100's 80 GB), 2,048 and 256 on the others (the L40S's 48 GB).
TEST(SizingServer, TakesVllmBatchDefaultsOfTheGpu) {
  const auto h100 = sized("llama-3.1-8b", "h100", at_32k());
  EXPECT_EQ(h100.server.max_num_batched_tokens, 8192);
  EXPECT_EQ(h100.server.max_num_seqs, 1024);
  const auto l40s = sized("llama-3.1-8b", "l40s", at_32k());
  EXPECT_EQ(l40s.server.max_num_batched_tokens, 2048);
  EXPECT_EQ(l40s.server.max_num_seqs, 256);
}

TEST(SizingServer, GivenBatchFlagsWinAndEveryStageReadsThem) {
  auto serve = at_32k();
  serve.max_num_batched_tokens = 4096;
  serve.max_num_seqs = 48;
  const auto s = sized("llama-3.1-8b", "h100", serve);
  EXPECT_EQ(s.server.max_num_batched_tokens, 4096);
  EXPECT_EQ(s.server.max_num_seqs, 48);
  // The budget's sampler warm-up is min(max-num-seqs, max-num-batched-tokens) requests
  // (gpu_model_runner.py _dummy_sampler_run): the server's figures, not a default of its own.
  EXPECT_EQ(s.budget.sampler.requests, 48);
  // The command states both, neither being the GPU's default; with the defaults it states neither.
  EXPECT_NE(s.vllm_command.find("--max-num-seqs 48"), std::string::npos);
  EXPECT_NE(s.vllm_command.find("--max-num-batched-tokens 4096"), std::string::npos);
  const auto d = sized("llama-3.1-8b", "h100", at_32k());
  EXPECT_EQ(d.budget.sampler.requests, 1024);
  EXPECT_EQ(d.vllm_command.find("--max-num-seqs"), std::string::npos);
}

TEST(SizingServer, HoldsTheResolvedWeightsAndKvLayout) {
  auto serve = at_32k();
  serve.quantization = Quantization::kFp8;
  serve.kv_cache_dtype = "fp8";
  const auto s = sized("llama-3.1-8b", "h100", serve);
  EXPECT_EQ(s.server.model, "llama-3.1-8b");
  EXPECT_EQ(s.server.hardware, "h100");
  EXPECT_EQ(s.server.weight_dtype, "fp8");  // a bf16 checkpoint quantized at load
  EXPECT_EQ(s.server.kv_cache_dtype, s.layout.kv_dtype);
  EXPECT_EQ(s.server.block_size, s.layout.block_size);
  EXPECT_EQ(s.server.max_model_len, 32768);
}

// Sized, written, read: the document's server is the sizing's, and written again it is the same.
void expect_round_trip(const Sizing& s) {
  const auto written = sizings_document({s});
  const auto read = size_document_from_json(written, "rt.json");
  ASSERT_EQ(read.results.size(), 1u);
  EXPECT_EQ(read.results[0].server, s.server);
  EXPECT_EQ(size_document_json(read).dump(), written.dump());
  // Every server key in the document is one of the table's, and each of the table's is there.
  nlohmann::json alone;
  write_server_json(s.server, alone);
  for (const auto& [key, value] : alone.items()) EXPECT_EQ(written["results"][0].at(key), value) << key;
}

TEST(SizingServer, SizeDocumentRoundTripsItsServer) {
  auto serve = at_32k();
  serve.kv_offloading_backend = OffloadingBackend::kLmcache;
  serve.kv_cache_dtype = "fp8";
  serve.max_num_seqs = 96;
  expect_round_trip(sized("llama-3.1-8b", "l40s", serve));
  // DP x EP, MLA's own dtype and block size: the keys written only where used come back too.
  auto dp = test::inputs("deepseek-v3", "h200", 2);
  dp.kv.dp = 4;
  dp.kv.expert_parallel = true;
  const auto moe = compute_sizing(dp);
  EXPECT_EQ(moe.server.data_parallel_size, 4);
  EXPECT_TRUE(moe.server.expert_parallel);
  expect_round_trip(moe);
}

TEST(SizingServer, DocumentWithoutAContextIsRefused) {
  auto doc = sizings_document({sized("llama-3.1-8b", "h100", at_32k())});
  doc["results"][0].erase("max_model_len");
  EXPECT_THROW(size_document_from_json(doc, "cut.json"), UsageError);
}

}  // namespace
}  // namespace kvb
