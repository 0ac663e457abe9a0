// size --secondary-tier-size on the rules path: vLLM's tiering configuration and the Simple
// connector's disk backend, their byte counts checked by hand, the refusals, and the JSON round trip.
#include <gtest/gtest.h>

#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "output/size/secondary_plan_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "size/secondary_tier_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

ServeSettings tiered(double cpu_gib, double secondary_gib, OffloadingBackend backend) {
  ServeSettings v;
  v.tensor_parallel_size = 4;
  v.max_model_len = 131072;
  v.kv_offloading_size = cpu_gib;
  v.kv_offloading_backend = backend;
  v.secondary_tier_size = secondary_gib;
  v.vllm_version = VllmVersion{0, 27, 0};
  return v;
}

Sizing sized(const ServeSettings& v) {
  std::vector<std::string> warnings;
  return compute_sizing(
      make_sizing_inputs(resolve_model("llama-3.1-70b", warnings), resolve_hardware("h100"), v));
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SecondaryTierPlan, TieringWritesTheCpuTierAsBytesAndTheFsTierWithoutASize) {
  const auto s = sized(tiered(200, 1000, OffloadingBackend::kNative));
  ASSERT_TRUE(s.offload && s.secondary);
  const double cpu_gib = s.offload->recommended_gib();
  ASSERT_GT(cpu_gib, 0);
  EXPECT_EQ(s.secondary->kind, SecondaryTierKind::kTieringFs);
  // cpu_bytes_to_use = GiB x 2^30, as vLLM turns --kv-offloading-size into it.
  const auto bytes = static_cast<std::uint64_t>(cpu_gib * 1073741824.0);
  EXPECT_EQ(s.secondary->cpu_bytes, bytes);
  EXPECT_TRUE(
      has(s.vllm_command,
          "--kv-transfer-config '{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":\"kv_both\","
          "\"kv_connector_extra_config\":{\"spec_name\":\"TieringOffloadingSpec\",\"cpu_bytes_to_use\":" +
              std::to_string(bytes) +
              ",\"secondary_tiers\":[{\"type\":\"fs\",\"root_dir\":\"/mnt/kv-tier\"}]}}'"))
      << s.vllm_command;
  // The tiering replaces the flag form; the stated 1000 GiB is no figure vLLM reads.
  EXPECT_FALSE(has(s.vllm_command, "--kv-offloading-size"));
  EXPECT_FALSE(has(s.vllm_command, "1073741824000"));
  EXPECT_TRUE(s.vllm_command_legacy.empty());
  EXPECT_TRUE(s.secondary_command.empty());
}

TEST(SecondaryTierPlan, SimpleDiskBackendIsEachRanksShareBesideTheCpuTierCommand) {
  const auto s = sized(tiered(200, 1000, OffloadingBackend::kSimple));
  ASSERT_TRUE(s.secondary);
  EXPECT_EQ(s.secondary->kind, SecondaryTierKind::kSimpleDisk);
  // 1000 GiB over TP 4: 1000 x 2^30 / 4 = 268,435,456,000 bytes per rank.
  EXPECT_EQ(s.secondary->bytes_per_rank, 268435456000u);
  EXPECT_TRUE(has(s.secondary_command,
                  "\"kv_offload_backend\":\"disk\",\"disk_path\":\"/mnt/kv-tier/kv_offload.bin\","
                  "\"disk_capacity_bytes\":268435456000"))
      << s.secondary_command;
  EXPECT_TRUE(has(s.secondary_command, "--tensor-parallel-size 4"));
  // The CPU tier's own command stays as it was: the disk backend is an alternative, not a cascade.
  EXPECT_TRUE(has(s.vllm_command, "--kv-offloading-size"));
}

TEST(SecondaryTierPlan, WithoutTheFlagTheCommandIsUnchanged) {
  auto v = tiered(200, 1000, OffloadingBackend::kNative);
  v.secondary_tier_size.reset();
  const auto s = sized(v);
  EXPECT_FALSE(s.secondary);
  EXPECT_TRUE(has(s.vllm_command, "--kv-offloading-backend native"));
  EXPECT_FALSE(has(s.vllm_command, "TieringOffloadingSpec"));
}

TEST(SecondaryTierPlan, RefusedWhereVllmWouldNotRunIt) {
  const auto refused = [](const ServeSettings& v, EngineKind e, const char* why) {
    try {
      check_secondary_tier(v, e);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const UsageError& err) {
      EXPECT_TRUE(has(err.what(), why)) << err.what();
    }
  };
  auto no_cpu = tiered(200, 100, OffloadingBackend::kNative);
  no_cpu.kv_offloading_size.reset();
  refused(no_cpu, EngineKind::kVllm, "needs a CPU tier in front of it");
  auto old = tiered(200, 100, OffloadingBackend::kNative);
  old.vllm_version = VllmVersion{0, 21, 0};
  refused(old, EngineKind::kVllm, "vLLM 0.22 or later");
  auto old_simple = tiered(200, 100, OffloadingBackend::kSimple);
  old_simple.vllm_version = VllmVersion{0, 26, 0};
  refused(old_simple, EngineKind::kVllm, "disk backend is in vLLM 0.27 or later");
  // The engines' own disk tiers are written on the rules path; only vLLM's tiering is simulated.
  EXPECT_NO_THROW(check_secondary_tier(tiered(200, 100, OffloadingBackend::kLmcache), EngineKind::kVllm));
  EXPECT_NO_THROW(check_secondary_tier(tiered(200, 100, OffloadingBackend::kNative), EngineKind::kSglang));
  EXPECT_THROW(check_secondary_tier(tiered(200, 100, OffloadingBackend::kNative), EngineKind::kDynamo, true),
               UsageError);
  // KVBM: disk >= CPU, GiB against GiB.
  EXPECT_THROW(check_kvbm_disk(100, 112), UsageError);
  EXPECT_NO_THROW(check_kvbm_disk(112, 112));
  auto first = tiered(200, 100, OffloadingBackend::kNative);
  first.vllm_version = VllmVersion{0, 22, 0};
  EXPECT_NO_THROW(check_secondary_tier(first, EngineKind::kVllm));
}

TEST(SecondaryTierPlan, EnginesOwnSizeKeys) {
  // LMCache: GiB per rank, 100 GiB over 4 ranks = 25; KVBM: 500 GiB = 536.87 GB, rounded up to 537.
  const auto lm = plan_secondary_tier(100, OffloadingBackend::kLmcache, 4, 64);
  EXPECT_EQ(lm.kind, SecondaryTierKind::kLmcacheDisk);
  EXPECT_DOUBLE_EQ(lm.engine_size, 25.0);
  const auto kv = plan_secondary_tier(500, OffloadingBackend::kNative, 1, 112, "", EngineKind::kDynamo);
  EXPECT_EQ(kv.kind, SecondaryTierKind::kKvbmDisk);
  EXPECT_DOUBLE_EQ(kv.engine_size, 537.0);
  const auto sg =
      plan_secondary_tier(300, OffloadingBackend::kNative, 2, 64, "/nvme/hc", EngineKind::kSglang);
  EXPECT_EQ(sg.kind, SecondaryTierKind::kSglangFile);
  EXPECT_EQ(sg.engine_size, 0.0);  // the file backend takes no size
  EXPECT_EQ(secondary_kind_from_name(secondary_kind_name(SecondaryTierKind::kSglangFile)),
            SecondaryTierKind::kSglangFile);
}

TEST(SecondaryTierPlan, ReadBackFromTheSizeDocument) {
  const std::vector<Sizing> all = {sized(tiered(200, 1000, OffloadingBackend::kNative)),
                                   sized(tiered(200, 1000, OffloadingBackend::kSimple))};
  const auto written = sizings_document(all);
  const auto read = size_document_from_json(written, "tiers.json");
  EXPECT_EQ(size_document_json(read).dump(), written.dump());
  ASSERT_TRUE(read.results[1].secondary);
  EXPECT_EQ(read.results[1].secondary->kind, SecondaryTierKind::kSimpleDisk);
  EXPECT_EQ(read.results[1].secondary->bytes_per_rank, 268435456000u);
  EXPECT_EQ(read.results[0].secondary->cpu_bytes, all[0].secondary->cpu_bytes);
  // The plan's words are worded from the plan read back, not kept: an older document's stale ones
  // are written as the plan's.
  auto stale = written;
  stale["results"][0]["secondary_tier"]["notes"] = {"words of another release"};
  const auto reworded = size_document_json(size_document_from_json(stale, "old.json"));
  EXPECT_EQ(reworded.dump(), written.dump());
  EXPECT_EQ(reworded["results"][0]["secondary_tier"]["notes"].get<std::vector<std::string>>(),
            secondary_plan_lines(*all[0].secondary));
}

}  // namespace
}  // namespace kvb
