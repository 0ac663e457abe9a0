// size --from-vllm-log's sizing (size/logged_pool) on a real log (tests/data/vllm-logs/): the
// pool sized is the one logged, block for block, and its bytes match the logged GiB.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/vllm_startup_log.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "size/logged_pool.hpp"
#include "test_helpers.hpp"
#include "test_paths.hpp"

using namespace kvb;

namespace {

VllmStartupLog fixture(const std::string& name) {
  return read_vllm_startup_log(std::string(KVBENCH_TEST_DATA) + "/vllm-logs/" + name);
}

}  // namespace

TEST(LoggedPool, SizesThePoolTheServerLogged) {
  // LMCache #1739: Qwen3-14B, "GPU KV cache size: 42,656 tokens" = 2,666 blocks of 16 tokens.
  const auto log = fixture("lmcache-1739-qwen3-14b.log");
  ServeSettings serve;
  serve.max_model_len = 32768;
  const auto r = size_with_logged_pool(test::model("qwen3-14b"), resolve_hardware("h100"), serve, {}, log);
  ASSERT_FALSE(r.sized.results.empty());
  const auto& s = r.sized.results.front();
  EXPECT_EQ(r.pool.blocks, 42'656 / 16);
  EXPECT_EQ(s.num_gpu_blocks, 2'666);
  EXPECT_EQ(s.gpu_kv_tokens, 42'656);
  EXPECT_EQ(std::round(s.max_concurrency * 100) / 100, 1.30);  // the logged 1.30x
  // 40 layers x 8 KV heads x 128 x 2 (K,V) x 2 B = 160 KiB a token, 2.5 MiB a 16-token block:
  // 2,666 x 2.5 MiB = 6.508 GiB, which vLLM logged as 6.51 GiB.
  EXPECT_DOUBLE_EQ(r.pool.block_bytes, 16.0 * 160 * 1024);
  EXPECT_NEAR(static_cast<double>(r.pool.blocks) * r.pool.block_bytes / kGiB, 6.51, 0.005);
  // The estimate is kvbench's budget model for an H100 (the GPU is not named): another figure.
  EXPECT_GT(r.pool.estimate_blocks, 0);
  EXPECT_FALSE(r.pool.pool_given);
}

TEST(LoggedPool, AKvCacheMemoryGivenWins) {
  const auto log = fixture("lmcache-1739-qwen3-14b.log");
  ServeSettings serve;
  serve.max_model_len = 32768;
  serve.kv_cache_memory = 1000ULL * 16 * 160 * 1024;  // 1,000 blocks
  const auto r = size_with_logged_pool(test::model("qwen3-14b"), resolve_hardware("h100"), serve, {}, log);
  EXPECT_TRUE(r.pool.pool_given);
  EXPECT_EQ(r.sized.results.front().num_gpu_blocks, 1'000);
}

TEST(LoggedPool, ALogWithoutThePoolIsRefused) {
  const auto log = fixture("gguf-101-qwen3-8b-cut.log");
  try {
    require_logged_pool(log, "cut.log");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU KV cache size"), std::string::npos) << e.what();
  }
}

TEST(LoggedPool, HybridTokensCountEveryGroup) {
  // vLLM logs num_blocks // num_groups * block_size: the blocks are the tokens / block size x groups.
  VllmStartupLog log;
  log.gpu_kv_tokens = 3 * 16 * 100;
  KvLayout l;
  l.block_size = 16;
  l.uniform = false;
  l.num_groups = 3;
  bool whole = false;
  EXPECT_EQ(logged_blocks(log, l, whole), 300 * 3);
  EXPECT_TRUE(whole);
  log.gpu_kv_tokens = 1'000'001;
  l.uniform = true;
  EXPECT_EQ(logged_blocks(log, l, whole), 62'500);
  EXPECT_FALSE(whole);
}
