// llm-d's approximate prefix producer's settings, checked by hand: its entries are 64-token
// blocks (llm-d-router approximateprefix/plugin.go, minBlockSizeTokens), so the LRU that matches a
// pool holds the pool's tokens / 64, and autoTune's num_gpu_blocks entries of 64 tokens remember
// four times a pool of 16-token blocks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/model_catalog.hpp"
#include "size/offload_plan.hpp"
#include "size/router_capacity.hpp"
#include "size/sizing.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

Sizing pool_of(std::int64_t blocks, int block_size) {
  Sizing s;
  s.layout.block_size = block_size;
  s.layout.uniform = true;
  s.num_gpu_blocks = blocks;
  s.gpu_kv_tokens = blocks * block_size;
  return s;
}

TEST(RouterCapacity, SixteenTokenBlocksAreCountedInSixtyFourTokenEntries) {
  auto s = pool_of(100'000, 16);  // 1.6M tokens
  const auto r = llmd_router_capacities(s);
  EXPECT_EQ(r.producer_block_tokens, 64);
  EXPECT_EQ(r.gpu.server_tokens, 1'600'000);
  EXPECT_EQ(r.gpu.lru_capacity_per_server, 25'000);  // 1,600,000 / 64
  EXPECT_EQ(r.autotune_gpu_entries, 100'000);
  EXPECT_DOUBLE_EQ(r.autotune_overstates(), 4.0);  // 100,000 x 64 / 1,600,000
  EXPECT_FALSE(r.cpu);                             // no tier recommended
}

TEST(RouterCapacity, ABlockAboveTheFloorIsTheEntry) {
  const auto r = llmd_router_capacities(pool_of(10'000, 128));
  EXPECT_EQ(r.producer_block_tokens, 128);
  EXPECT_EQ(r.gpu.lru_capacity_per_server, 10'000);
  EXPECT_DOUBLE_EQ(r.autotune_overstates(), 1.0);  // autoTune is right when blocks are >= 64 tokens
}

TEST(RouterCapacity, TheRecommendedTierIsTheCpuProducersCapacity) {
  // Llama-3.1-8B on an H100 at 32K: the rule recommends a tier; its tokens / 64 are the entries.
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.max_model_len = 32768;
  const auto s = compute_sizing(
      make_sizing_inputs(resolve_model("llama-3.1-8b", warnings), resolve_hardware("h100"), serve));
  ASSERT_TRUE(s.offload);
  ASSERT_GT(s.offload->recommended_gib(), 0);
  const auto r = llmd_router_capacities(s);
  ASSERT_TRUE(r.cpu);
  EXPECT_EQ(r.cpu->server_tokens, s.offload->cpu_tokens);
  EXPECT_EQ(r.cpu->lru_capacity_per_server, s.offload->cpu_tokens / 64);
  // 128 KiB a token (32 layers x 8 KV heads x 128 x 2 x 2 B): a GiB holds 8,192 tokens, 128 entries.
  EXPECT_NEAR(static_cast<double>(r.cpu->lru_capacity_per_server) / s.offload->recommended_gib(), 128, 1);
}

}  // namespace
}  // namespace kvb
