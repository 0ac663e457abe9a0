// What a release changes in `size`: the Simple connector's command, host memory and first release;
// the one-call registration of a 512 GiB region; a drafter zeroing a Mamba hybrid's hits.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "size/offload_plan.hpp"
#include "size/sizing_inputs.hpp"
#include "size/vllm_command.hpp"
#include "test_helpers.hpp"

using namespace kvb;

namespace {

template <typename T>
const T* find_warning(const std::vector<SizingWarning>& all) {
  for (const auto& w : all) {
    if (const auto* x = std::get_if<T>(&w)) return x;
  }
  return nullptr;
}

TierRecommendation with_size(double gib) {
  TierRecommendation r;
  r.basis = RecommendationBasis::kSimulation;
  r.kv_offloading_size_gib = gib;
  return r;
}

// Llama-3.1-70B at TP 4 with the tier `gib` recommended, on `backend` and `release`.
Sizing seventy_b(OffloadingBackend backend, VllmVersion release, double gib, SizingInputs* out = nullptr) {
  auto in = test::inputs("llama-3.1-70b", "h100", 4);
  in.max_model_len = 131072;
  in.offloading_backend = backend;
  in.vllm_version = release;
  const auto plan = plan_sizing(in);
  if (out) *out = in;
  return with_commands(plan, in, with_recommendation(*plan.offload, plan, in, with_size(gib)));
}

}  // namespace

TEST(ReleaseRules, SimpleConnectorGivesEachRankItsShareInBytes) {
  // 100 GiB over 4 ranks: 25 GiB = 26,843,545,600 bytes per rank, 107,374,182,400 in all.
  const auto s = seventy_b(OffloadingBackend::kSimple, {0, 33, 0}, 100);
  const std::int64_t per_rank = 25LL * 1024 * 1024 * 1024;
  EXPECT_NE(
      s.vllm_command_legacy.find(fmt::format(
          "--kv-transfer-config '{{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\","
          "\"kv_connector_extra_config\":{{\"cpu_bytes_to_use\":{},\"cpu_bytes_to_use_per_rank\":{},"
          "\"lazy_offload\":false}}}}'",
          per_rank * 4, per_rank)),
      std::string::npos)
      << s.vllm_command_legacy;
  // The flag form: vLLM's native flags, the connector chosen by the environment (PR #37160).
  EXPECT_EQ(s.vllm_command.rfind("VLLM_USE_SIMPLE_KV_OFFLOAD=1 vllm serve ", 0), 0u) << s.vllm_command;
  EXPECT_NE(s.vllm_command.find("--kv-offloading-backend native"), std::string::npos);
  EXPECT_EQ(s.vllm_command.find("--kv-offloading-backend simple"), std::string::npos);
  EXPECT_NE(s.vllm_command.find("--kv-offloading-size 100"), std::string::npos);
  // Its host memory: the flag, per rank, outside /dev/shm.
  ASSERT_TRUE(s.offload->host_memory);
  EXPECT_EQ(s.offload->host_memory->backing, TierBacking::kRegisteredTensors);
  EXPECT_DOUBLE_EQ(s.offload->host_memory->per_rank_host_bytes, 25 * kGiB);
  EXPECT_DOUBLE_EQ(s.offload->host_memory->dev_shm_bytes, 0);
}

TEST(ReleaseRules, SimpleConnectorBeforeItsReleaseIsRefusedNamingBoth) {
  ServeSettings serve;
  serve.kv_offloading_backend = OffloadingBackend::kSimple;
  serve.vllm_version = VllmVersion{0, 18, 0};
  const auto model = test::model("llama-3.1-8b");
  const auto hw = resolve_hardware("h100");
  try {
    (void)make_sizing_inputs(model, hw, serve, NodeOverrides{});
    ADD_FAILURE() << "0.18 with the Simple connector sized";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--kv-offloading-backend simple with --vllm-version 0.18.0"), std::string::npos) << m;
    EXPECT_NE(m.find("expected --vllm-version 0.19 or newer"), std::string::npos) << m;
  }
  serve.vllm_version = VllmVersion{0, 19, 0};
  EXPECT_EQ(make_sizing_inputs(model, hw, serve, NodeOverrides{}).offloading_backend,
            OffloadingBackend::kSimple);
  EXPECT_THROW(check_engine_and_backend(EngineKind::kSglang, OffloadingBackend::kSimple), UsageError);
  EXPECT_EQ(parse_offloading_backend("simple", "--kv-offloading-backend"), OffloadingBackend::kSimple);
  EXPECT_EQ(to_string(OffloadingBackend::kSimple), "simple");
}

TEST(ReleaseRules, SimpleConnectorKeepsAHybridsManagerOnlyWhenAskedBefore021) {
  // PR #37160 (0.19) served gpt-oss with --no-disable-hybrid-kv-cache-manager: before #41847 (0.21)
  // vLLM turned the manager off under any connector.
  for (const auto& [release, asked] :
       {std::pair{VllmVersion{0, 20, 0}, true}, {VllmVersion{0, 21, 0}, false}}) {
    auto in = test::inputs("gpt-oss-120b", "h100");
    in.offloading_backend = OffloadingBackend::kSimple;
    in.vllm_version = release;
    in.kv_offloading_size_gib = 64;
    const auto s = compute_sizing(in);
    ASSERT_TRUE(s.offload);
    EXPECT_EQ(s.vllm_command.find("--no-disable-hybrid-kv-cache-manager") != std::string::npos, asked)
        << to_string(release);
  }
}

TEST(ReleaseRules, A512GibRegionRefusesToStartUntilItIsRegisteredInChunks) {
  // One cudaHostRegister of 512 GiB or more fails (issue #51080), from the /dev/shm region (0.27)
  // until it is registered in chunks (#51081: 0.31).
  for (const auto& [release, fails] : {std::pair{VllmVersion{0, 26, 0}, false},
                                       {VllmVersion{0, 27, 0}, true},
                                       {VllmVersion{0, 30, 0}, true},
                                       {VllmVersion{0, 31, 0}, false}}) {
    const auto s = seventy_b(OffloadingBackend::kNative, release, 600);
    const auto* w = find_warning<TierRegionPinFails>(s.warnings);
    EXPECT_EQ(w != nullptr, fails) << to_string(release);
    if (w) {
      EXPECT_TRUE(refuses_start(SizingWarning{*w}));
      EXPECT_NE(sizing_warning_text(SizingWarning{*w}).find("vLLM 0.31 or newer registers it in chunks"),
                std::string::npos);
    }
  }
  // 511 GiB starts; so does the Simple connector's tier, which has no one region.
  EXPECT_EQ(find_warning<TierRegionPinFails>(seventy_b(OffloadingBackend::kNative, {0, 27, 0}, 511).warnings),
            nullptr);
  EXPECT_EQ(find_warning<TierRegionPinFails>(seventy_b(OffloadingBackend::kSimple, {0, 27, 0}, 600).warnings),
            nullptr);
  // The warning is the commands' stage's, for the size they give: none in the plan, one for the
  // 600 GiB a caller chose, none where the same plan is commanded with 511 GiB.
  SizingInputs in;
  const auto s = seventy_b(OffloadingBackend::kNative, {0, 28, 0}, 600, &in);
  const auto plan = plan_sizing(in);
  EXPECT_EQ(find_warning<TierRegionPinFails>(plan.warnings), nullptr);
  int count = 0;
  for (const auto& w : s.warnings) count += std::holds_alternative<TierRegionPinFails>(w) ? 1 : 0;
  EXPECT_EQ(count, 1);
  ASSERT_NE(find_warning<TierRegionPinFails>(s.warnings), nullptr);
  EXPECT_EQ(find_warning<TierRegionPinFails>(s.warnings)->tier_gib, 600);
  EXPECT_FALSE(find_warning<TierRegionPinFails>(s.warnings)->given);
  const auto small = with_commands(plan, in, with_recommendation(*plan.offload, plan, in, with_size(511)));
  EXPECT_EQ(find_warning<TierRegionPinFails>(small.warnings), nullptr);
}

TEST(ReleaseRules, AMambaHybridsDrafterZeroesItsTierHitsBefore030) {
  auto in = test::inputs("nemotron-3-nano-30b-a3b", "h100");
  in.kv.draft_layers = 1;
  in.vllm_version = VllmVersion{0, 29, 0};
  const auto sized = compute_sizing(in);  // the warning found points into it
  const auto* w = find_warning<DraftZeroesTierHits>(sized.warnings);
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(refuses_start(SizingWarning{*w}));  // it starts; the tier serves nothing
  EXPECT_NE(sizing_warning_text(SizingWarning{*w}).find("#52771"), std::string::npos);
  in.vllm_version = VllmVersion{0, 30, 0};
  EXPECT_EQ(find_warning<DraftZeroesTierHits>(compute_sizing(in).warnings), nullptr);
  // No drafter, or a model of one KV cache group: nothing to say.
  in.vllm_version = VllmVersion{0, 29, 0};
  in.kv.draft_layers = 0;
  EXPECT_EQ(find_warning<DraftZeroesTierHits>(compute_sizing(in).warnings), nullptr);
  auto dense = test::inputs("llama-3.1-8b", "h100");
  dense.kv.draft_layers = 1;
  dense.vllm_version = VllmVersion{0, 29, 0};
  EXPECT_EQ(find_warning<DraftZeroesTierHits>(compute_sizing(dense).warnings), nullptr);
}
