// Metric names, types and labels from the engines' sources (docs/observe.md cites each file):
// vllm/v1/metrics/loggers.py; vllm/distributed/kv_transfer/kv_connector/v1/offloading/metrics.py
// and vllm/v1/kv_offload/cpu/ (spec.py, manager.py); SGLang's
// python/sglang/srt/observability/metrics_collector.py; LMCache's lmcache/observability.py.
#include "observe/observe_window.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "core/errors.hpp"
#include "observe/observe_verdict.hpp"

namespace kvb {
namespace {

struct FigureSpec {
  Figure figure;
  const char* family;
  bool counter;
  PromMatch match;
};

const std::vector<FigureSpec>& vllm_specs() {
  static const std::vector<FigureSpec> specs{
      {Figure::PrefixQueries, "vllm:prefix_cache_queries", true, {}},
      {Figure::PrefixHits, "vllm:prefix_cache_hits", true, {}},
      {Figure::TierQueries, "vllm:external_prefix_cache_queries", true, {}},
      {Figure::TierHits, "vllm:external_prefix_cache_hits", true, {}},
      {Figure::PromptTokens, "vllm:prompt_tokens", true, {}},
      {Figure::Preemptions, "vllm:num_preemptions", true, {}},
      {Figure::KvUsage, "vllm:kv_cache_usage_perc", false, {}},
      {Figure::StoresSkipped, "vllm:kv_offload_stores_skipped", true, {}},
      {Figure::AllocationFailures, "vllm:kv_offload_allocation_failure", true, {}},
      {Figure::TierInFlightUsage, "vllm:kv_offload_cpu_cache_usage_perc", false, {}},
  };
  return specs;
}

// The connector's transfer counters in the release's spelling: flat names where they exist (the
// labelled ones then count the same bytes again, so only one spelling is read).
std::vector<FigureSpec> transfer_specs(OffloadNaming naming) {
  if (naming == OffloadNaming::FlatNames)
    return {{Figure::StoreBytes, "vllm:kv_offload_store_bytes", true, {}},
            {Figure::LoadBytes, "vllm:kv_offload_load_bytes", true, {}},
            {Figure::StoreSeconds, "vllm:kv_offload_store_time", true, {}},
            {Figure::LoadSeconds, "vllm:kv_offload_load_time", true, {}}};
  if (naming == OffloadNaming::TransferTypeLabel)
    return {{Figure::StoreBytes, "vllm:kv_offload_total_bytes", true, {{"transfer_type", "GPU_to_CPU"}}},
            {Figure::LoadBytes, "vllm:kv_offload_total_bytes", true, {{"transfer_type", "CPU_to_GPU"}}},
            {Figure::StoreSeconds, "vllm:kv_offload_total_time", true, {{"transfer_type", "GPU_to_CPU"}}},
            {Figure::LoadSeconds, "vllm:kv_offload_total_time", true, {{"transfer_type", "CPU_to_GPU"}}}};
  return {};
}

const std::vector<FigureSpec>& sglang_specs() {
  static const std::vector<FigureSpec> specs{
      {Figure::SgPromptTokens, "sglang:prompt_tokens", true, {}},
      {Figure::SgDeviceHits, "sglang:cached_tokens", true, {{"cache_source", "device"}}},
      {Figure::SgHostHits, "sglang:cached_tokens", true, {{"cache_source", "host"}}},
      {Figure::SgStorageHits, "sglang:cached_tokens", true, {{"cache_source", "storage"}}},
      {Figure::SgRetractions, "sglang:num_retracted_requests", true, {}},
      {Figure::SgTokenUsage, "sglang:token_usage", false, {}},
      {Figure::SgHostUsedTokens, "sglang:hicache_host_used_tokens", false, {}},
      {Figure::SgHostTotalTokens, "sglang:hicache_host_total_tokens", false, {}},
  };
  return specs;
}

const std::vector<FigureSpec>& lmcache_specs() {
  static const std::vector<FigureSpec> specs{
      {Figure::LmRequestedTokens, "lmcache:num_requested_tokens", true, {}},
      {Figure::LmHitTokens, "lmcache:num_hit_tokens", true, {}},
      {Figure::LmStoredTokens, "lmcache:num_stored_tokens", true, {}},
      {Figure::LmLocalCacheBytes, "lmcache:local_cache_usage", false, {}},
  };
  return specs;
}

bool is_ratio(Figure f) {
  return f == Figure::KvUsage || f == Figure::TierInFlightUsage || f == Figure::SgTokenUsage;
}

std::optional<double> read_spec(const PromExposition& e, const FigureSpec& s) {
  if (s.counter) return prom_counter(e, s.family, s.match);
  // A ratio per engine is averaged; token and byte counts per rank add up.
  return is_ratio(s.figure) ? prom_gauge_mean(e, s.family, s.match) : prom_gauge_sum(e, s.family, s.match);
}

std::string metric_text(const FigureSpec& s) {
  std::string text = s.family;
  for (std::size_t i = 0; i < s.match.size(); ++i)
    text += fmt::format("{}{}=\"{}\"", i == 0 ? "{" : ",", s.match[i].first, s.match[i].second);
  return s.match.empty() ? text : text + "}";
}

void read_specs(const PromExposition& before, const PromExposition& after,
                const std::vector<FigureSpec>& specs, const std::string& source, ObserveResult& r) {
  for (const auto& s : specs) {
    const auto b = read_spec(before, s);
    const auto a = read_spec(after, s);
    if (!a) continue;  // not exposed (or gone): not read
    for (const auto v : {b.value_or(0.0), *a})
      if (!std::isfinite(v) || v < 0)
        throw UsageError(fmt::format("{}: {} reads {}; expected a finite count or share, not below 0", source,
                                     metric_text(s), v));
    Reading reading{s.figure, metric_text(s), s.counter, b.value_or(s.counter ? 0.0 : *a), *a, 0, 0};
    if (s.counter) {
      reading.delta = reading.after - reading.before;
      reading.per_second = reading.delta / r.seconds;
    }
    r.readings.push_back(std::move(reading));
  }
}

std::string sample_key(const PromSample& s) {
  std::string key = s.name;
  for (const auto& [k, v] : s.labels) key += fmt::format("{{{}={}}}", k, v);
  return key;
}

// prometheus_client types a counter's family by its sample name (name_total); another client may
// type it by the bare name. A _total sample of no known family is read as a counter.
bool is_counter_sample(const PromExposition& e, const PromSample& s) {
  const std::string_view name = s.name;
  if (name.size() <= 6 || name.substr(name.size() - 6) != "_total") return false;
  for (const auto family : {name, name.substr(0, name.size() - 6)}) {
    const auto it = e.families.find(family);
    if (it != e.families.end() && !it->second.type.empty()) return it->second.type == "counter";
  }
  return true;
}

// Counters only grow while a server runs: one that fell means a restart or swapped dumps.
void check_counters(const PromExposition& before, const PromExposition& after, const std::string& source) {
  std::map<std::string, double> earlier;
  for (const auto& s : before.samples) earlier.emplace(sample_key(s), s.value);
  for (const auto& s : after.samples) {
    if (!is_counter_sample(after, s)) continue;
    const auto it = earlier.find(sample_key(s));
    if (it == earlier.end() || !(s.value < it->second)) continue;
    throw UsageError(
        fmt::format("{}: counter {} fell from {} to {} between the scrapes: the server restarted, or the two "
                    "dumps are swapped; expected the same server's counters, the earlier scrape first",
                    source, sample_key(s), it->second, s.value));
  }
}

// A server that counts more hits than lookups is not to be believed.
void check_hits(const ObserveResult& r, const std::string& source) {
  const std::pair<Figure, Figure> pairs[] = {{Figure::PrefixHits, Figure::PrefixQueries},
                                             {Figure::TierHits, Figure::TierQueries},
                                             {Figure::LmHitTokens, Figure::LmRequestedTokens}};
  for (const auto& [hits, queries] : pairs) {
    const auto* h = r.find(hits);
    const auto* q = r.find(queries);
    if (h == nullptr || q == nullptr || !(h->delta > q->delta)) continue;
    throw UsageError(fmt::format("{}: {} grew by {} but {} by only {}; expected hits no more than lookups",
                                 source, h->metric, h->delta, q->metric, q->delta));
  }
}

}  // namespace

const Reading* ObserveResult::find(Figure f) const {
  for (const auto& r : readings)
    if (r.figure == f) return &r;
  return nullptr;
}

double ObserveResult::delta(Figure f) const {
  const auto* r = find(f);
  return r != nullptr ? r->delta : 0.0;
}

ObserveResult observe_window(const PromExposition& before, const PromExposition& after, double seconds,
                             const std::string& after_source) {
  if (!(seconds > 0))
    throw UsageError(
        fmt::format("{}: {} s between the scrapes; expected more than 0 s", after_source, seconds));
  check_counters(before, after, after_source);
  ObserveResult r;
  r.seconds = seconds;
  r.lmcache = prom_has_prefix(after, "lmcache:");
  if (prom_has_prefix(after, "vllm:")) {
    r.engine = ObservedEngine::Vllm;
    r.naming = prom_has_prefix(after, "vllm:kv_offload_store_bytes")   ? OffloadNaming::FlatNames
               : prom_has_prefix(after, "vllm:kv_offload_total_bytes") ? OffloadNaming::TransferTypeLabel
                                                                       : OffloadNaming::None;
    read_specs(before, after, vllm_specs(), after_source, r);
    read_specs(before, after, transfer_specs(r.naming), after_source, r);
  } else if (prom_has_prefix(after, "sglang:")) {
    r.engine = ObservedEngine::Sglang;
    read_specs(before, after, sglang_specs(), after_source, r);
  } else if (r.lmcache) {
    r.engine = ObservedEngine::Lmcache;
  } else {
    throw UsageError(
        fmt::format("{}: no vLLM, SGLang or LMCache metric (no sample named vllm:*, sglang:* or "
                    "lmcache:*); expected a serving engine's /metrics",
                    after_source));
  }
  if (r.lmcache) read_specs(before, after, lmcache_specs(), after_source, r);
  check_readings(r, after_source);
  judge_tier(r);
  return r;
}

void check_readings(const ObserveResult& r, const std::string& source) {
  check_hits(r, source);
  for (const auto& reading : r.readings)
    if (is_ratio(reading.figure) && !(reading.after >= 0 && reading.after <= 1))
      throw UsageError(fmt::format("{}: {} reads {}; expected a ratio between 0 and 1", source,
                                   reading.metric, reading.after));
}

}  // namespace kvb
