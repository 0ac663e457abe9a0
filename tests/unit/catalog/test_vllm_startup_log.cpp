// The vLLM start-up log reader (catalog/vllm_startup_log) on real logs vendored under
// tests/data/vllm-logs/ (README there: each log's issue and date). Each expected figure is read off
// the log's text by hand; the ones it implies (tokens over the request length) are computed here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "catalog/model_catalog.hpp"
#include "catalog/python_literal.hpp"
#include "catalog/vllm_startup_log.hpp"
#include "core/errors.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

std::string log_path(const std::string& name) {
  return std::string(KVBENCH_TEST_DATA) + "/vllm-logs/" + name;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// LMCache issue #1739: Qwen3-14B on one GPU, the pool lines only.
TEST(VllmStartupLog, PoolLinesOfOneGpu) {
  const auto log = read_vllm_startup_log(log_path("lmcache-1739-qwen3-14b.log"));
  ASSERT_TRUE(log.available_kv_gib && log.gpu_kv_tokens && log.concurrency_tokens && log.concurrency);
  EXPECT_DOUBLE_EQ(*log.available_kv_gib, 6.51);
  EXPECT_EQ(*log.gpu_kv_tokens, 42'656);
  EXPECT_EQ(*log.concurrency_tokens, 32'768);
  EXPECT_DOUBLE_EQ(*log.concurrency, 1.30);
  // vLLM's concurrency is the pool's tokens over the request's: 42,656 / 32,768 = 1.3017.
  EXPECT_NEAR(static_cast<double>(*log.gpu_kv_tokens) / static_cast<double>(*log.concurrency_tokens),
              *log.concurrency, 0.005);
  EXPECT_FALSE(log.gpu_blocks);
  EXPECT_EQ(log.pool_reports, 1);
  EXPECT_TRUE(log.release.empty());
  EXPECT_TRUE(log.models.empty());
  EXPECT_EQ(log.server_keys.at("max-model-len"), "32768");  // the request length of the concurrency line
}

// club-3090 issue #91: vLLM 0.20.1, TP 2, its non-default args and the engine's config line.
TEST(VllmStartupLog, ArgsConfigAndPoolOfTensorParallelServer) {
  const auto log = read_vllm_startup_log(log_path("club-3090-91-qwen3.6-27b-tp2.log"));
  EXPECT_EQ(log.release, "0.20.1");
  EXPECT_EQ(log.gpu_kv_tokens.value_or(0), 619'479);
  EXPECT_EQ(log.concurrency_tokens.value_or(0), 262'144);
  EXPECT_NEAR(619'479.0 / 262'144.0, log.concurrency.value_or(0), 0.005);  // 2.363 logged as 2.36x
  const auto& k = log.server_keys;
  EXPECT_EQ(k.at("tensor-parallel-size"), "2");
  EXPECT_EQ(k.at("kv-cache-dtype"), "fp8_e5m2");
  EXPECT_EQ(k.at("max-model-len"), "262144");
  EXPECT_EQ(k.at("max-num-batched-tokens"), "8192");
  EXPECT_EQ(k.at("max-num-seqs"), "2");
  EXPECT_EQ(k.count("gpu-memory-utilization"), 0u);  // not given: vLLM's default stands
  EXPECT_TRUE(has(log.not_taken, "quantization: auto_round"));
  EXPECT_TRUE(has(log.models, "~/.cache/huggingface/qwen3.6-27b-autoround-int4"));
  EXPECT_TRUE(has(log.models, "qwen3.6-27b-autoround"));
  EXPECT_EQ(log.args.at("speculative_config").at("num_speculative_tokens"), 3);
  EXPECT_EQ(log.args.at("enable_prefix_caching"), true);
  EXPECT_EQ(find_catalog_model(log.models.front()), nullptr);  // Qwen3.6-27B is not in the catalog
}

// vllm-gguf-plugin issue #101: vLLM 0.18.0's banner and args with a CPU tier; cut before the pool.
TEST(VllmStartupLog, BannerArgsAndTierOfALogCutBeforeThePool) {
  const auto log = read_vllm_startup_log(log_path("gguf-101-qwen3-8b-cut.log"));
  EXPECT_EQ(log.release, "0.18.0");
  EXPECT_FALSE(log.gpu_kv_tokens || log.gpu_blocks);
  EXPECT_EQ(log.pool_reports, 0);
  const auto& k = log.server_keys;
  EXPECT_EQ(k.at("kv-offloading-size"), "16");
  EXPECT_EQ(k.at("gpu-memory-utilization"), "0.79");
  EXPECT_EQ(k.at("kv-cache-dtype"), "fp8");
  EXPECT_EQ(k.at("max-model-len"), "16384");
  EXPECT_EQ(k.at("max-num-seqs"), "16");
  EXPECT_EQ(k.at("hybrid-kv-cache-manager"), "true");  // disable_hybrid_kv_cache_manager: True
  EXPECT_TRUE(has(log.models, "/models/Qwen/Qwen3-8B"));
  const auto* m = find_catalog_model("/models/Qwen/Qwen3-8B");  // its hf_config_path: the id's tail
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "qwen3-8b");
}

// Real lines of other releases, quoted in issues (the engine line abridged to the keys read): V0's "# GPU
// blocks" (vllm-project/vllm #2418, 2024-01-11) and its engine line with PP 2 (rust-lang/www.rust-lang.org
// #2107, vLLM 0.6.6).
TEST(VllmStartupLog, VersionZeroLines) {
  const auto log = parse_vllm_startup_log(
      "INFO 01-14 03:08:50 llm_engine.py:234] Initializing an LLM engine (v0.6.6) with config: "
      "model='/workspace/models/models--Qwen--Qwen2-0.5B', speculative_config=None, max_seq_len=131072, "
      "tensor_parallel_size=1, pipeline_parallel_size=2, kv_cache_dtype=auto, seed=0\n"
      "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 229, # CPU blocks: 512\n",
      "v0.log");
  EXPECT_EQ(log.release, "0.6.6");
  EXPECT_EQ(log.gpu_blocks.value_or(0), 229);
  EXPECT_EQ(log.server_keys.at("pipeline-parallel-size"), "2");
  EXPECT_EQ(log.server_keys.at("max-model-len"), "131072");
  EXPECT_TRUE(has(log.models, "/workspace/models/models--Qwen--Qwen2-0.5B"));
}

// With TP > 1 each worker may log the pool: the smallest is kept (vLLM sizes every rank to it).
TEST(VllmStartupLog, SeveralReportsKeepTheSmallest) {
  const auto log = parse_vllm_startup_log(
      "(Worker_TP0 pid=1) INFO 01-01 00:00:00 [kv_cache_utils.py:1] GPU KV cache size: 1,024 tokens\n"
      "(Worker_TP1 pid=2) INFO 01-01 00:00:00 [kv_cache_utils.py:1] GPU KV cache size: 992 tokens\n",
      "tp.log");
  EXPECT_EQ(log.gpu_kv_tokens.value_or(0), 992);
  EXPECT_EQ(log.pool_reports, 2);
  EXPECT_FALSE(log.pool_reports_agree);
}

TEST(VllmStartupLog, RefusesWhatIsNotALog) {
  EXPECT_THROW(parse_vllm_startup_log("", "empty.log"), UsageError);
  EXPECT_THROW(parse_vllm_startup_log("hello\nworld\n", "x.log"), UsageError);
  // Prose that quotes the figures is not a log: no logger's level and source.
  EXPECT_THROW(parse_vllm_startup_log("GPU KV cache size: 288,608 tokens\n", "README.md"), UsageError);
  EXPECT_THROW(read_vllm_startup_log(std::string(KVBENCH_TEST_DATA) + "/vllm-logs"), UsageError);
  // A non-default args line that does not close names its line.
  try {
    parse_vllm_startup_log("\nINFO 01-01 00:00:00 [utils.py:1] non-default args: {'model': 'x'\n", "cut.log");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.log:2"), std::string::npos) << e.what();
  }
}

// Found by a mutation run over the fixtures: a value of another type than vLLM writes, and bytes
// that are not UTF-8, are read as facts, never an exception other than UsageError.
TEST(VllmStartupLog, OddTypesAndBytesInTheArgs) {
  const auto log = parse_vllm_startup_log(
      "INFO 01-01 00:00:00 [utils.py:1] non-default args: {'disable_hybrid_kv_cache_manager': 'yes', "
      "'speculative_config': {'m': '\xa4'}, ('k', '\xa4'): 1, 'tensor_parallel_size': [2]}\n",
      "odd.log");
  EXPECT_EQ(log.server_keys.count("hybrid-kv-cache-manager"), 0u);
  EXPECT_EQ(log.server_keys.at("tensor-parallel-size"), "[2]");  // refused later by the flag's reader
  ASSERT_EQ(log.not_taken.size(), 1u);
  EXPECT_NE(log.not_taken.front().find("speculative_config"), std::string::npos);
}

TEST(PythonLiteral, ReadsWhatReprWrites) {
  const auto v = parse_python_literal(
      R"({'a': 'it\'s', "b": "x'y", 'n': -3, 'f': 0.79, 'e': 1e-05, 't': True, 'z': None, 'l': [1, (2, 3)],)"
      R"( 'one': (4,), 'd': {'k': {}}, 'cfg': KVTransferConfig(kv_connector='LMCacheConnectorV1', extra={'a': ')'}),)"
      R"( 'enum': <Backend.TRITON: 'v.b'>, 'inf': inf})",
      "t");
  EXPECT_EQ(v.at("a"), "it's");
  EXPECT_EQ(v.at("b"), "x'y");
  EXPECT_EQ(v.at("n"), -3);
  EXPECT_DOUBLE_EQ(v.at("f").get<double>(), 0.79);
  EXPECT_DOUBLE_EQ(v.at("e").get<double>(), 1e-05);
  EXPECT_EQ(v.at("t"), true);
  EXPECT_TRUE(v.at("z").is_null());
  EXPECT_EQ(v.at("l").dump(), "[1,[2,3]]");
  EXPECT_EQ(v.at("one").dump(), "[4]");
  EXPECT_TRUE(v.at("d").at("k").empty());
  EXPECT_EQ(v.at("cfg"), "KVTransferConfig(kv_connector='LMCacheConnectorV1', extra={'a': ')'})");
  EXPECT_EQ(v.at("enum"), "<Backend.TRITON: 'v.b'>");
  EXPECT_EQ(v.at("inf"), "inf");
}

TEST(PythonLiteral, RefusesMalformedAndDeepInput) {
  for (const char* bad : {"", "{", "{'a' 1}", "{'a': 1", "['x", "[1 2]", "{'a': X(1}", "<a", "@"})
    EXPECT_THROW(parse_python_literal(bad, "t"), UsageError) << bad;
  EXPECT_THROW(parse_python_literal(std::string(1000, '['), "t"), UsageError);
  EXPECT_NO_THROW(
      parse_python_literal(std::string(kMaxLiteralDepth, '[') + std::string(kMaxLiteralDepth, ']'), "t"));
}

}  // namespace
}  // namespace kvb
