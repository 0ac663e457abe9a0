// Another engine's sizing notes are facts (size/engine_notes.hpp) worded once
// (output/size/engine_notes_text); the figures below are worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "output/size/engine_notes_text.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

TEST(EngineNotesText, HicacheSizeIsDecimalGigabytesPerRank) {
  // 280 GiB over 4 ranks: 280 x 1.073741824 / 4 = 75.16 GB per rank.
  EXPECT_EQ(engine_note_text(SglangHicacheSize{.gib = 280, .ranks = 4, .per_rank_gb = 75.162}),
            "--hicache-size is GB (10^9) per rank: 280 GiB across 4 ranks = 75.2 GB per rank, rounded up "
            "(sglang/srt/mem_cache/memory_pool_host.py)");
  EXPECT_EQ(engine_note_text(SglangHostRaised{.host_gb = 38, .device_gb = 36.9}),
            "raised to 38 GB per rank: SGLang requires the host pool to exceed the device pool (36.9 GB per "
            "rank)");
}

TEST(EngineNotesText, KvbmSaysWhichSideOfTheGpuPoolItsCacheIs) {
  EXPECT_EQ(engine_note_text(KvbmAgainstGpuPool{.gpu_pool_gib = 137.6, .above = false, .simulated = false}),
            "below the 137.6 GiB GPU KV pool: KVBM is write-through and churns when its CPU cache is smaller "
            "than the GPU's (KVBM's docs)");
  const auto above =
      engine_note_text(KvbmAgainstGpuPool{.gpu_pool_gib = 137.6, .above = true, .simulated = true});
  EXPECT_NE(above.find("above the 137.6 GiB GPU KV pool"), std::string::npos);
  EXPECT_NE(above.find("from the model's KV and the simulated traffic"), std::string::npos);
  EXPECT_EQ(
      engine_note_text(LmcacheSizePerRank{.gib = 64, .ranks = 1}),
      "LMCACHE_MAX_LOCAL_CPU_SIZE is GiB per rank (LMCache multiplies it by 1024**3 in each worker): 64 "
      "GiB / 1 rank");
}

TEST(EngineNotes, DynamoRecordsItsCacheInDecimalGigabytesAndBlocks) {
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.max_model_len = 32768;
  NodeOverrides node;
  node.engine = EngineKind::kDynamo;
  const auto s = compute_sizing(
      make_sizing_inputs(resolve_model("llama-3.1-8b", warnings), resolve_hardware("h100"), serve, node));
  ASSERT_FALSE(s.engine_notes.empty());
  const auto* size = std::get_if<KvbmCacheSize>(&s.engine_notes.front());
  ASSERT_NE(size, nullptr);
  // The tier's GiB in decimal GB, rounded up; Llama-3.1-8B's block of 16 tokens is
  // 16 x 32 layers x 2 x 8 heads x 128 x 2 B = 2 MiB, and KVBM makes whole blocks of the GB.
  EXPECT_DOUBLE_EQ(size->gib, s.offload->recommended_gib());
  EXPECT_DOUBLE_EQ(size->cache_gb, std::ceil(size->gib * 1073741824.0 / 1e9));
  EXPECT_DOUBLE_EQ(size->block_bytes, 2097152.0);
  EXPECT_EQ(size->host_blocks, static_cast<std::int64_t>(size->cache_gb * 1e9 / 2097152.0));
  EXPECT_EQ(size->ranks, 1);
}

}  // namespace
}  // namespace kvb
