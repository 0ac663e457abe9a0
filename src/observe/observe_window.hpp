#pragma once
// Two scrapes of a serving engine's /metrics, some seconds apart: the counters turned into deltas
// and rates, the gauges read, and whether the CPU KV tier pays, as facts (output/observe/observe_text
// words them). The metrics read and where each engine defines them: docs/observe.md.
#include <optional>
#include <string>
#include <vector>

#include "observe/prom_text.hpp"

namespace kvb {

enum class ObservedEngine { Vllm, Sglang, Lmcache };

// One figure kvbench reads; output/observe/observe_text gives each its words and its source file.
enum class Figure {
  PrefixQueries,
  PrefixHits,
  TierQueries,
  TierHits,
  PromptTokens,
  Preemptions,
  KvUsage,  // vLLM
  StoreBytes,
  LoadBytes,
  StoreSeconds,
  LoadSeconds,
  StoresSkipped,
  AllocationFailures,  // vLLM's
  TierInFlightUsage,   // tier
  SgPromptTokens,
  SgDeviceHits,
  SgHostHits,
  SgStorageHits,
  SgRetractions,
  SgTokenUsage,  // SGLang
  SgHostUsedTokens,
  SgHostTotalTokens,
  LmRequestedTokens,
  LmHitTokens,
  LmStoredTokens,
  LmLocalCacheBytes,  // LMCache
};

struct Reading {
  Figure figure = Figure::PrefixQueries;
  std::string metric;  // the family read, with its label filter:
                       // vllm:kv_offload_total_bytes{transfer_type="GPU_to_CPU"}
  bool counter = true;
  double before = 0;  // a counter not yet created at the first scrape reads 0
  double after = 0;
  double delta = 0;       // counters: after - before
  double per_second = 0;  // counters: delta / seconds
};

// Which names vLLM's offloading connector exposes: the release's spelling (docs/observe.md).
enum class OffloadNaming {
  None,               // no offloading connector metrics
  TransferTypeLabel,  // vllm:kv_offload_total_bytes{transfer_type=...} only (the first releases)
  FlatNames,          // vllm:kv_offload_store_bytes / _load_bytes (the labelled ones deprecated)
};

enum class TierVerdictKind { Pays, OnlyStores, TooSmall, NotUsed, NoTraffic, NoTier, Unknown };

// What the verdict rests on, in the engine's own units.
struct TierEvidence {
  bool bytes = true;             // stored/loaded in bytes (vLLM's connector), else tokens
  double queried = 0;            // tokens looked up in the tier
  double hits = 0;               // tokens served from it
  std::optional<double> stored;  // nullopt: the engine does not count its stores
  std::optional<double> loaded;
  double refusals = 0;              // stores refused for want of a free block
  std::optional<double> occupancy;  // SGLang: host tokens used / total at the second scrape
};

// Below this share of the stored volume loaded back, the tier "only stores": llm-d's sign that a
// tier costs memory and link time without saving prefill (llm-d PR #2485). kvbench's threshold.
inline constexpr double kLoadsPerStoreFloor = 0.05;

struct ObserveResult {
  ObservedEngine engine = ObservedEngine::Vllm;
  bool lmcache = false;  // LMCache's figures were read too (vLLM with its connector, or alone)
  double seconds = 0;
  OffloadNaming naming = OffloadNaming::None;
  std::vector<Reading> readings;
  TierVerdictKind verdict = TierVerdictKind::NoTier;
  TierEvidence evidence;

  const Reading* find(Figure f) const;
  double delta(Figure f) const;  // 0 when not read
};

// Refuses what cannot be a window of one server (UsageError naming `after_source`): a counter that
// went down (a restart between the scrapes, or the dumps swapped), hits above lookups, a ratio
// gauge outside [0, 1], a figure read that is negative or not finite, seconds not above zero.
ObserveResult observe_window(const PromExposition& before, const PromExposition& after, double seconds,
                             const std::string& after_source);

// The checks on the readings alone (hits above lookups, a ratio gauge outside [0, 1]): a window
// read back from its document passes them too.
void check_readings(const ObserveResult& r, const std::string& source);

}  // namespace kvb
