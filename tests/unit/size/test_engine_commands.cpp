// --engine sglang and lmcache: the tier size in each engine's own units, computed by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/units.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_engine.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {

SizingInputs llama70b_tp4(EngineKind engine) {
  auto in = test::inputs("llama-3.1-70b", "h100", 4);
  in.max_model_len = 131072;
  in.engine = engine;
  if (engine == EngineKind::kLmcache) in.offloading_backend = OffloadingBackend::kLmcache;
  return in;
}

// A recommendation from elsewhere (as advise/ hands one over) of `gib`.
TierRecommendation with_size(double gib) {
  TierRecommendation r;
  r.basis = RecommendationBasis::kSimulation;
  r.kv_offloading_size_gib = gib;
  return r;
}

}  // namespace

TEST(EngineCommands, SglangHicacheSizeIsGbPerRank) {
  auto s = compute_sizing(llama70b_tp4(EngineKind::kSglang));
  ASSERT_TRUE(s.offload);
  // GiB across 4 ranks -> GB (10^9) on each rank, rounded up: 280 GiB -> 75.16 -> 76.
  const double per_rank_gb = s.offload->recommended_gib() * kGiB / 4 / 1e9;
  EXPECT_DOUBLE_EQ(s.hicache_size_gb_per_rank, std::ceil(per_rank_gb));
  EXPECT_NE(s.engine_command.find(fmt::format("--hicache-size {:.0f}", std::ceil(per_rank_gb))),
            std::string::npos);
  EXPECT_NE(s.engine_command.find("--tp-size 4"), std::string::npos);
  EXPECT_NE(s.engine_command.find("--enable-hierarchical-cache"), std::string::npos);
  // --hicache-ratio is host pool over device pool, both per rank.
  EXPECT_NEAR(s.hicache_ratio, s.hicache_size_gb_per_rank / (s.kv_gib_available * kGiB / 1e9), 1e-12);
}

TEST(EngineCommands, SglangHostPoolMustExceedTheDevicePool) {
  const auto in = llama70b_tp4(EngineKind::kSglang);
  const auto plan = plan_sizing(in);
  // 1 GiB per rank: far below the ~37 GB pool
  const auto s = with_commands(plan, in, with_recommendation(*plan.offload, plan, in, with_size(4)));
  const double device_gb = s.kv_gib_available * kGiB / 1e9;
  EXPECT_DOUBLE_EQ(s.hicache_size_gb_per_rank, std::floor(device_gb) + 1);
  EXPECT_GT(s.hicache_ratio, 1.0);
}

TEST(EngineCommands, LmcacheSizeIsGibPerRankInTheEnvironment) {
  auto s = compute_sizing(llama70b_tp4(EngineKind::kLmcache));
  ASSERT_TRUE(s.offload);
  const double per_rank = s.offload->recommended_gib() / 4.0;
  EXPECT_NE(s.engine_command.find(fmt::format("LMCACHE_MAX_LOCAL_CPU_SIZE={:.1f} ", per_rank)),
            std::string::npos);
  EXPECT_NE(s.engine_command.find("LMCacheConnectorV1"), std::string::npos);
}

TEST(EngineCommands, NoTierNoOffloadingFlags) {
  auto in = llama70b_tp4(EngineKind::kSglang);
  const auto plan = plan_sizing(in);
  const auto s = with_commands(plan, in, with_recommendation(*plan.offload, plan, in, with_size(0)));
  EXPECT_EQ(s.engine_command.find("hicache"), std::string::npos);
  EXPECT_EQ(s.vllm_command.find("--kv-offloading"), std::string::npos);
}
