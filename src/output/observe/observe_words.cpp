#include "output/observe/observe_words.hpp"

#include <fmt/format.h>

#include <map>

#include "core/units.hpp"

namespace kvb {
namespace {

constexpr const char* kLoggers = "vllm/v1/metrics/loggers.py";
constexpr const char* kConnector = "vllm/distributed/kv_transfer/kv_connector/v1/offloading/metrics.py";
constexpr const char* kCpuTier = "vllm/v1/kv_offload/cpu/ (spec.py, manager.py)";
constexpr const char* kSglang = "python/sglang/srt/observability/metrics_collector.py";
constexpr const char* kLmcache = "lmcache/observability.py";

using U = FigureUnit;
// The table, not a function: one row per figure.
const std::map<Figure, FigureWords> kWords{
    {Figure::PrefixQueries,
     {"gpu_prefix_queries", "GPU prefix lookups", U::Tokens,
      "prompt tokens looked up in the GPU prefix cache (tokens, not requests)", kLoggers}},
    {Figure::PrefixHits,
     {"gpu_prefix_hits", "GPU prefix hits", U::Tokens,
      "tokens found in the GPU prefix cache; not tokens served by the CPU tier", kLoggers}},
    {Figure::TierQueries,
     {"tier_queries", "Tier lookups", U::Tokens,
      "tokens the KV connector (the CPU tier, LMCache) was asked for; first-time content that can never hit "
      "counts too",
      kLoggers}},
    {Figure::TierHits,
     {"tier_hits", "Tier hits", U::Tokens,
      "tokens the connector had, loaded instead of recomputed: the prefill the tier saved", kLoggers}},
    {Figure::PromptTokens,
     {"prompt_tokens", "Prompt tokens", U::Tokens,
      "every prompt token, cache hits included: not the prefill work done", kLoggers}},
    {Figure::Preemptions,
     {"preemptions", "Preemptions", U::Count,
      "requests preempted for want of GPU KV blocks; each recomputes or reloads its KV", kLoggers}},
    {Figure::KvUsage,
     {"gpu_kv_usage", "GPU KV usage", U::Ratio,
      "share of GPU KV blocks in use at the scrape (mean over engines); not how much cached prefix survives",
      kLoggers}},
    {Figure::StoreBytes,
     {"store_bytes", "Stores GPU->CPU", U::Bytes,
      "bytes copied to the tier; a store saves nothing until it is loaded back", kConnector}},
    {Figure::LoadBytes,
     {"load_bytes", "Loads CPU->GPU", U::Bytes,
      "bytes copied back from the tier: the transfers that replace prefill", kConnector}},
    {Figure::StoreSeconds,
     {"store_seconds", "Store time", U::Seconds,
      "seconds the stores took, summed over transfers (they overlap, so it can exceed the window)",
      kConnector}},
    {Figure::LoadSeconds,
     {"load_seconds", "Load time", U::Seconds,
      "seconds the loads took, summed over transfers (they overlap, so it can exceed the window)",
      kConnector}},
    {Figure::StoresSkipped,
     {"stores_skipped", "Stores skipped", U::Count,
      "stores not made because a block was not looked up store_threshold times (exposed only with "
      "store_threshold >= 2)",
      kCpuTier}},
    {Figure::AllocationFailures,
     {"allocation_failures", "Allocation failures", U::Count,
      "stores refused because the tier had no free or evictable block", kConnector}},
    {Figure::TierInFlightUsage,
     {"tier_in_flight_usage", "Tier usage (in flight)", U::Ratio,
      "blocks held by transfers in flight (allocated - free - evictable): NOT how full the tier is; a full "
      "tier reads 0 between transfers",
      kCpuTier}},
    {Figure::SgPromptTokens,
     {"prompt_tokens", "Prompt tokens", U::Tokens,
      "prefill tokens of the requests processed, cached ones included", kSglang}},
    {Figure::SgDeviceHits,
     {"gpu_cached_tokens", "GPU radix hits", U::Tokens,
      "prompt tokens found in the GPU radix cache (cache_source=\"device\")", kSglang}},
    {Figure::SgHostHits,
     {"host_cached_tokens", "Host tier hits", U::Tokens,
      "prompt tokens loaded back from HiCache's host pool (cache_source=\"host\"): the prefill it saved",
      kSglang}},
    {Figure::SgStorageHits,
     {"storage_cached_tokens", "Storage tier hits", U::Tokens,
      "prompt tokens loaded from HiCache's storage backend (cache_source=\"storage\")", kSglang}},
    {Figure::SgRetractions,
     {"retractions", "Retractions", U::Count, "requests retracted for want of GPU KV (SGLang's preemption)",
      kSglang}},
    {Figure::SgTokenUsage,
     {"gpu_kv_usage", "GPU KV usage", U::Ratio,
      "the fullest of SGLang's KV pools at the scrape (mean over ranks); held, not cached, tokens", kSglang}},
    {Figure::SgHostUsedTokens,
     {"host_used_tokens", "Host pool used", U::Tokens,
      "tokens held in HiCache's host pool at the scrape (summed over the ranks that report it)", kSglang}},
    {Figure::SgHostTotalTokens,
     {"host_total_tokens", "Host pool size", U::Tokens, "the host pool's capacity in tokens", kSglang}},
    {Figure::LmRequestedTokens,
     {"lmcache_requested_tokens", "LMCache lookups", U::Tokens, "tokens requested from LMCache", kLmcache}},
    {Figure::LmHitTokens,
     {"lmcache_hit_tokens", "LMCache hits", U::Tokens, "tokens LMCache had and returned", kLmcache}},
    {Figure::LmStoredTokens,
     {"lmcache_stored_tokens", "LMCache stores", U::Tokens,
      "tokens stored, evicted ones included: not what it holds now", kLmcache}},
    {Figure::LmLocalCacheBytes,
     {"lmcache_local_cache_bytes", "LMCache local bytes", U::Bytes,
      "bytes held in LMCache's local (CPU) cache at the scrape", kLmcache}},
};

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

std::string amount(const TierEvidence& e, double v) {
  return e.bytes ? format_bytes_decimal(v) : format_count(static_cast<std::int64_t>(v)) + " tokens";
}

}  // namespace

const FigureWords& figure_words(Figure f) { return kWords.at(f); }

const char* engine_name(ObservedEngine e) {
  return e == ObservedEngine::Vllm ? "vLLM" : e == ObservedEngine::Sglang ? "SGLang" : "LMCache";
}
const char* engine_key(ObservedEngine e) {
  return e == ObservedEngine::Vllm ? "vllm" : e == ObservedEngine::Sglang ? "sglang" : "lmcache";
}
const char* naming_key(OffloadNaming n) {
  return n == OffloadNaming::FlatNames           ? "flat_names"
         : n == OffloadNaming::TransferTypeLabel ? "transfer_type_label"
                                                 : "none";
}

std::string naming_text(OffloadNaming n) {
  if (n == OffloadNaming::FlatNames)
    return "the offloading connector's flat names (vllm:kv_offload_store_bytes, _load_bytes); the "
           "transfer_type-labelled vllm:kv_offload_total_bytes counts the same bytes and is not added";
  if (n == OffloadNaming::TransferTypeLabel)
    return "the offloading connector's first names (vllm:kv_offload_total_bytes{transfer_type=\"GPU_to_CPU\"/"
           "\"CPU_to_GPU\"}); no allocation-failure counter in this release";
  return "no offloading connector metrics (vllm:kv_offload_*)";
}

const char* verdict_key(TierVerdictKind v) {
  switch (v) {
    case TierVerdictKind::Pays:
      return "pays";
    case TierVerdictKind::OnlyStores:
      return "costs";
    case TierVerdictKind::TooSmall:
      return "too_small";
    case TierVerdictKind::NotUsed:
      return "not_used";
    case TierVerdictKind::NoTraffic:
      return "no_traffic";
    case TierVerdictKind::NoTier:
      return "no_tier";
    case TierVerdictKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::string verdict_text(const ObserveResult& r) {
  const auto& e = r.evidence;
  const double loaded = e.loaded.value_or(e.hits);
  const auto hits = format_count(static_cast<std::int64_t>(e.hits));
  const auto queried = format_count(static_cast<std::int64_t>(e.queried));
  const auto served = r.engine == ObservedEngine::Sglang
                          ? fmt::format("{} of {} prompt tokens came from the host tier ({:.1f}%)", hits,
                                        queried, pct(e.hits, e.queried))
                          : fmt::format("{} of {} tokens looked up in it were served from it ({:.1f}%)", hits,
                                        queried, pct(e.hits, e.queried));
  switch (r.verdict) {
    case TierVerdictKind::Pays:
      return e.stored ? fmt::format("the tier pays: {}; it loaded back {} for {} stored ({:.0f}%)", served,
                                    amount(e, loaded), amount(e, *e.stored), pct(loaded, *e.stored))
                      : fmt::format("the tier pays: {}", served);
    case TierVerdictKind::OnlyStores:
      if (!e.stored)
        return fmt::format(
            "the tier costs: its host pool holds {:.0f}% of its tokens but served none of the {} "
            "prompt tokens; host memory spent without saving prefill",
            100 * e.occupancy.value_or(0), format_count(static_cast<std::int64_t>(e.queried)));
      return fmt::format(
          "the tier costs: it stored {} but loaded back {} ({:.1f}%, under {:.0f}%): steady stores "
          "with almost no loads spend host memory and link time without saving prefill",
          amount(e, *e.stored), amount(e, loaded), pct(loaded, *e.stored), 100 * kLoadsPerStoreFloor);
    case TierVerdictKind::TooSmall:
      return fmt::format("the tier is too small: {} stores found no free block in it; {}",
                         format_count(static_cast<std::int64_t>(e.refusals)), served);
    case TierVerdictKind::NotUsed:
      return fmt::format("the tier is not used: nothing was stored in it or loaded from it in {:.1f} s",
                         r.seconds);
    case TierVerdictKind::NoTraffic:
      return fmt::format("no traffic: no prompt token was looked up in {:.1f} s; observe again under load",
                         r.seconds);
    case TierVerdictKind::NoTier:
      return "no CPU tier: the endpoint exposes no tier metrics (vllm:kv_offload_*, lmcache:*, "
             "sglang:hicache_*)";
    case TierVerdictKind::Unknown:
      return "cannot tell: this release counts cached tokens without saying which tier served them (no "
             "cache_source label on sglang:cached_tokens)";
  }
  return "";
}

}  // namespace kvb
