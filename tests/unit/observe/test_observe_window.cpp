// Rates and the tier's verdict (observe/observe_window.hpp) on the test dumps, whose deltas are
// worked out by hand in the comments, and on small windows built for each verdict and refusal.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "observe/observe_window.hpp"
#include "observe/prom_text.hpp"
#include "test_paths.hpp"

namespace kvb {
namespace {

PromExposition dump(const std::string& name) {
  const auto path = std::string(KVBENCH_TEST_DATA) + "/observe/" + name;
  return parse_prom_text(read_text_file(path, path), path);
}

ObserveResult window(const std::string& before, const std::string& after, double seconds = 60) {
  return observe_window(parse_prom_text(before, "a"), parse_prom_text(after, "b"), seconds, "b");
}

std::string refusal(const std::string& before, const std::string& after, double seconds = 60) {
  try {
    window(before, after, seconds);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ObserveWindow, VllmTierThatPays) {
  const auto r = observe_window(dump("vllm_pays_before.prom"), dump("vllm_pays_after.prom"), 60, "after");
  EXPECT_EQ(r.engine, ObservedEngine::Vllm);
  EXPECT_EQ(r.naming, OffloadNaming::FlatNames);
  EXPECT_EQ(r.delta(Figure::PrefixQueries), 120000);           // 1,120,000 - 1,000,000
  EXPECT_EQ(r.find(Figure::PrefixQueries)->per_second, 2000);  // 120,000 / 60 s
  EXPECT_EQ(r.delta(Figure::TierHits), 36000);                 // 236,000 - 200,000
  // 46e9 - 40e9 from the flat counter alone: the labelled GPU_to_CPU copy is not added
  EXPECT_EQ(r.delta(Figure::StoreBytes), 6e9);
  EXPECT_EQ(r.delta(Figure::LoadBytes), 4.5e9);
  EXPECT_EQ(r.delta(Figure::StoreSeconds), 3);
  EXPECT_EQ(r.delta(Figure::Preemptions), 3);
  EXPECT_EQ(r.find(Figure::KvUsage)->after, 0.62);
  EXPECT_EQ(r.verdict, TierVerdictKind::Pays);  // loads 4.5 / 6 = 75% of stores
  EXPECT_EQ(r.evidence.queried, 72000);
  EXPECT_EQ(*r.evidence.stored, 6e9);
}

TEST(ObserveWindow, VllmTierThatOnlyStoresInTheFirstReleasesNames) {
  const auto r = observe_window(dump("vllm_stores_before.prom"), dump("vllm_stores_after.prom"), 60, "after");
  EXPECT_EQ(r.naming, OffloadNaming::TransferTypeLabel);
  EXPECT_EQ(r.delta(Figure::StoreBytes), 8e9);             // GPU_to_CPU: 38e9 - 30e9
  EXPECT_NEAR(r.delta(Figure::LoadBytes), 2e7, 1);         // CPU_to_GPU: 0.12e9 - 0.1e9, 0.25% of the stores
  EXPECT_EQ(r.find(Figure::AllocationFailures), nullptr);  // not in this release
  EXPECT_EQ(r.verdict, TierVerdictKind::OnlyStores);
}

TEST(ObserveWindow, SglangHicacheTokensPerTier) {
  const auto r =
      observe_window(dump("sglang_hicache_before.prom"), dump("sglang_hicache_after.prom"), 60, "after");
  EXPECT_EQ(r.engine, ObservedEngine::Sglang);
  EXPECT_EQ(r.delta(Figure::SgPromptTokens), 240000);
  EXPECT_EQ(r.delta(Figure::SgDeviceHits), 96000);
  EXPECT_EQ(r.delta(Figure::SgHostHits), 60000);  // 25% of the prompt tokens came from the host pool
  EXPECT_DOUBLE_EQ(*r.evidence.occupancy, 350000.0 / 400000.0);
  EXPECT_EQ(r.verdict, TierVerdictKind::Pays);
}

const std::string kTier =
    "vllm:prefix_cache_queries_total 100\nvllm:external_prefix_cache_queries_total 50\n"
    "vllm:external_prefix_cache_hits_total 10\nvllm:kv_offload_store_bytes_total 1000\n"
    "vllm:kv_offload_load_bytes_total 500\nvllm:kv_offload_allocation_failure_total 0\n";

TEST(ObserveWindow, RefusedStoresMakeTheTierTooSmall) {
  const auto r =
      window(kTier,
             "vllm:prefix_cache_queries_total 200\nvllm:external_prefix_cache_queries_total 90\n"
             "vllm:external_prefix_cache_hits_total 30\nvllm:kv_offload_store_bytes_total 2000\n"
             "vllm:kv_offload_load_bytes_total 1500\nvllm:kv_offload_allocation_failure_total 4\n");
  EXPECT_EQ(r.verdict, TierVerdictKind::TooSmall);
  EXPECT_EQ(r.evidence.refusals, 4);
}

TEST(ObserveWindow, NotUsedNoTrafficAndNoTier) {
  const auto busy =
      "vllm:prefix_cache_queries_total 300\nvllm:external_prefix_cache_queries_total 50\n"
      "vllm:external_prefix_cache_hits_total 10\nvllm:kv_offload_store_bytes_total 1000\n"
      "vllm:kv_offload_load_bytes_total 500\nvllm:kv_offload_allocation_failure_total 0\n";
  EXPECT_EQ(window(kTier, busy).verdict, TierVerdictKind::NotUsed);  // lookups, nothing moved
  EXPECT_EQ(window(kTier, kTier).verdict, TierVerdictKind::NoTraffic);
  EXPECT_EQ(window("vllm:prefix_cache_queries_total 1\n", "vllm:prefix_cache_queries_total 9\n").verdict,
            TierVerdictKind::NoTier);
}

TEST(ObserveWindow, LoadsUnderFivePercentOfStoresOnlyStore) {
  // 1000 stored, 49 loaded (4.9%): costs; 50 (5%): pays.
  const auto at = [](int loaded) {
    return "vllm:prefix_cache_queries_total 200\nvllm:external_prefix_cache_queries_total 90\n"
           "vllm:external_prefix_cache_hits_total 11\nvllm:kv_offload_store_bytes_total 2000\n"
           "vllm:kv_offload_load_bytes_total " +
           std::to_string(500 + loaded) + "\nvllm:kv_offload_allocation_failure_total 0\n";
  };
  EXPECT_EQ(window(kTier, at(49)).verdict, TierVerdictKind::OnlyStores);
  EXPECT_EQ(window(kTier, at(50)).verdict, TierVerdictKind::Pays);
}

TEST(ObserveWindow, LmcacheAloneAndSglangWithoutTheSourceLabel) {
  const auto lm =
      window("lmcache:num_requested_tokens 100\nlmcache:num_hit_tokens 0\nlmcache:num_stored_tokens 100\n",
             "lmcache:num_requested_tokens 300\nlmcache:num_hit_tokens 0\nlmcache:num_stored_tokens 300\n");
  EXPECT_EQ(lm.engine, ObservedEngine::Lmcache);
  EXPECT_EQ(lm.verdict, TierVerdictKind::OnlyStores);  // 200 tokens stored, none hit
  const auto sg = window(
      "sglang:prompt_tokens_total 10\nsglang:cached_tokens_total 5\nsglang:hicache_host_total_tokens 99\n",
      "sglang:prompt_tokens_total 20\nsglang:cached_tokens_total 9\nsglang:hicache_host_total_tokens 99\n");
  EXPECT_EQ(sg.verdict, TierVerdictKind::Unknown);
}

TEST(ObserveWindow, RefusesWhatOneServerCannotShow) {
  EXPECT_NE(refusal("vllm:prefix_cache_queries_total 10\n", "vllm:prefix_cache_queries_total 9\n")
                .find("fell from 10 to 9"),
            std::string::npos);
  EXPECT_NE(refusal("vllm:prefix_cache_queries_total 10\nvllm:prefix_cache_hits_total 0\n",
                    "vllm:prefix_cache_queries_total 11\nvllm:prefix_cache_hits_total 5\n")
                .find("hits no more than lookups"),
            std::string::npos);
  EXPECT_NE(
      refusal("vllm:kv_cache_usage_perc 0.5\n", "vllm:kv_cache_usage_perc 1.5\n").find("between 0 and 1"),
      std::string::npos);
  EXPECT_NE(
      refusal("vllm:prefix_cache_queries_total 1\n", "vllm:prefix_cache_queries_total NaN\n").find("finite"),
      std::string::npos);
  EXPECT_NE(refusal("vllm:num_preemptions_total -5\n", "vllm:num_preemptions_total -5\n").find("not below 0"),
            std::string::npos);
  EXPECT_NE(refusal("up 1\n", "up 1\n").find("no vLLM, SGLang or LMCache metric"), std::string::npos);
  EXPECT_NE(refusal("vllm:x 1\n", "vllm:x 1\n", 0).find("expected more than 0 s"), std::string::npos);
}

}  // namespace
}  // namespace kvb
