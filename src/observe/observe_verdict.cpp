// The tier's verdict over one window. A tier pays when what it loads back is a real share of what
// it stores; "steady stores with almost no loads" is llm-d's sign that it costs host memory and
// link time without saving prefill (llm-d PR #2485); a store refused for want of a block says the
// tier is too small (vLLM's vllm:kv_offload_allocation_failure, kv_offload/cpu/manager.py).
#include "observe/observe_verdict.hpp"

namespace kvb {
namespace {

struct TierSeen {
  bool present = false;  // the endpoint exposes a tier
  bool traffic = false;  // prompt tokens were looked up in the window
  bool split = true;     // the engine says which tokens the tier served
};

TierSeen vllm_evidence(const ObserveResult& r, TierEvidence& e) {
  TierSeen seen;
  e.queried = r.delta(Figure::TierQueries);
  e.hits = r.delta(Figure::TierHits);
  if (r.naming != OffloadNaming::None) {
    e.bytes = true;
    if (r.find(Figure::StoreBytes) != nullptr) e.stored = r.delta(Figure::StoreBytes);
    if (r.find(Figure::LoadBytes) != nullptr) e.loaded = r.delta(Figure::LoadBytes);
    e.refusals = r.delta(Figure::AllocationFailures);
  } else if (r.lmcache) {
    e.bytes = false;
    e.stored = r.delta(Figure::LmStoredTokens);
    e.loaded = r.delta(Figure::LmHitTokens);
  }
  seen.present = r.naming != OffloadNaming::None || r.lmcache || e.queried > 0;
  seen.traffic = r.delta(Figure::PrefixQueries) > 0 || e.queried > 0 || e.stored.value_or(0) > 0;
  return seen;
}

TierSeen sglang_evidence(const ObserveResult& r, TierEvidence& e) {
  TierSeen seen;
  e.bytes = false;
  e.queried = r.delta(Figure::SgPromptTokens);
  e.hits = r.delta(Figure::SgHostHits) + r.delta(Figure::SgStorageHits);
  e.loaded = e.hits;
  const auto* used = r.find(Figure::SgHostUsedTokens);
  const auto* total = r.find(Figure::SgHostTotalTokens);
  if (used != nullptr && total != nullptr && total->after > 0) e.occupancy = used->after / total->after;
  seen.present = total != nullptr;
  seen.traffic = e.queried > 0;
  // Releases before the cache_source label count cached tokens without saying from where.
  seen.split = r.find(Figure::SgDeviceHits) != nullptr || r.find(Figure::SgHostHits) != nullptr;
  return seen;
}

TierSeen lmcache_evidence(const ObserveResult& r, TierEvidence& e) {
  e.bytes = false;
  e.queried = r.delta(Figure::LmRequestedTokens);
  e.hits = r.delta(Figure::LmHitTokens);
  e.stored = r.delta(Figure::LmStoredTokens);
  e.loaded = e.hits;
  return {true, e.queried > 0 || *e.stored > 0, true};
}

TierVerdictKind verdict_of(const TierEvidence& e, const TierSeen& seen) {
  if (!seen.present) return TierVerdictKind::NoTier;
  if (!seen.traffic) return TierVerdictKind::NoTraffic;
  if (!seen.split) return TierVerdictKind::Unknown;
  const double stored = e.stored.value_or(0);
  const double loaded = e.loaded.value_or(e.hits);
  if (stored == 0 && loaded == 0 && e.hits == 0)
    // SGLang does not count its stores: a host pool holding tokens that served none only stored.
    return e.occupancy.value_or(0) > 0 ? TierVerdictKind::OnlyStores : TierVerdictKind::NotUsed;
  if (e.refusals > 0) return TierVerdictKind::TooSmall;
  if (stored > 0 && loaded < kLoadsPerStoreFloor * stored) return TierVerdictKind::OnlyStores;
  return TierVerdictKind::Pays;
}

}  // namespace

void judge_tier(ObserveResult& r) {
  TierEvidence e;
  TierSeen seen;
  switch (r.engine) {
    case ObservedEngine::Vllm:
      seen = vllm_evidence(r, e);
      break;
    case ObservedEngine::Sglang:
      seen = sglang_evidence(r, e);
      break;
    case ObservedEngine::Lmcache:
      seen = lmcache_evidence(r, e);
      break;
  }
  r.evidence = e;
  r.verdict = verdict_of(e, seen);
}

}  // namespace kvb
