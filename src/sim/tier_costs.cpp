#include "sim/tier_costs.hpp"

#include <fmt/format.h>

#include <array>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {
namespace {

constexpr std::array<const char*, kTierCostCount> kNames = {
    "fabric-sharing", "connector-cpu", "kernel-sms",   "store-visibility", "load-convoy",
    "load-polling",   "decode-stores", "lmcache-sync", "preempt-flush",    "finish-hold"};

}  // namespace

std::string to_string(TierCost c) { return kNames[static_cast<std::size_t>(c)]; }

TierCostSet parse_tier_costs(const std::vector<std::string>& names, const std::string& what) {
  auto set = TierCostSet::none();
  // all and none stand alone: beside a mechanism, one of the two would be silently dropped.
  for (const auto& name : names) {
    if (names.size() > 1 && (name == "all" || name == "none")) {
      throw UsageError(
          fmt::format("{}: '{}' in a list of {}; expected all or none alone, or a list of mechanisms", what,
                      name, join(names, ", ")));
    }
  }
  for (const auto& name : names) {
    if (name == "all") return TierCostSet::all();
    if (name == "none") continue;
    bool found = false;
    for (int i = 0; i < kTierCostCount; ++i) {
      if (name == kNames[static_cast<std::size_t>(i)]) {
        set = set.with(static_cast<TierCost>(i));
        found = true;
      }
    }
    if (!found) {
      throw UsageError(fmt::format("{}: '{}' is not a tier cost; expected all, none or a list of {}", what,
                                   name, join(std::vector<std::string>(kNames.begin(), kNames.end()), ", ")));
    }
  }
  return set;
}

std::vector<std::string> tier_cost_names(TierCostSet set) {
  std::vector<std::string> out;
  for (int i = 0; i < kTierCostCount; ++i) {
    if (set.on(static_cast<TierCost>(i))) out.emplace_back(kNames[static_cast<std::size_t>(i)]);
  }
  return out;
}

// Releases, read in vLLM's source (main at each release's branch cut; the PR dates say where a
// change falls when it was merged after one cut and before the next):
// - store-visibility: up to the 0.19 cut, OffloadingConnectorWorker reports a request's stores
//   only once the request has finished and all its jobs are done (offloading/worker.py, "finished
//   sending"), so its CPU blocks stay unready for everyone else until then; #39186 (merged
//   2026-04-29) reports per job. Taken as fixed from 0.21, the first release cut after it.
// - load-convoy: #29087 (merged 2026-01-21, in 0.15): get_num_new_matched_tokens returns None while
//   any hit block is being loaded for another request, which is retried step after step (vLLM
//   issue #44294; its fix #44295 is in no release). Every release from 0.15 on.
// - load-polling: the worker learns that a load finished in get_finished, polled once after each
//   forward pass (kv_connector_model_runner_mixin.py); every release.
// - decode-stores: #33881 (in 0.18) stores every block that fills, decode included.
// - fabric-sharing and kernel-sms are hardware, every release.
bool applies_to(TierCost c, const VllmVersion& v) {
  switch (c) {
    case TierCost::kStoreVisibility:
    case TierCost::kFinishHold:
      return v < VllmVersion{0, 21, 0};
    case TierCost::kLoadConvoy:
      return !(v < VllmVersion{0, 15, 0});
    case TierCost::kDecodeStores:
      return !(v < VllmVersion{0, 18, 0});
    case TierCost::kPreemptFlush:
      // #29870 (merged 2026-01-11, between the 0.13 and 0.14 releases): assumed from 0.14.
      return !(v < VllmVersion{0, 14, 0});
    case TierCost::kFabricSharing:
    case TierCost::kConnectorCpu:
    case TierCost::kKernelSms:
    case TierCost::kLoadPolling:
    case TierCost::kLmcacheSync:
      return true;
  }
  return true;
}

// LMCache's connector (read in LMCache 0.4.4's vllm_v1_adapter.py and gpu_connectors.py, the study
// of docs/accuracy.md's release): wait_for_save, after the forward pass and before sampling, stores
// each request's new full chunks in a loop with a store_stream.synchronize() per chunk, and
// start_load_kv retrieves a request's hit before the forward pass starts (use_layerwise off by
// default); get_finished returns nothing pending. So its copies lengthen the step that makes them and
// none of the native connector's asynchronous mechanisms (stores beside the steps, loads the
// scheduler waits for, per-block cudaMemcpyAsync calls, decode stores) apply to it. Its copies do not
// overlap the forward pass's all-reduces either (fabric-sharing is the native tier's).
bool belongs_to_connector(TierCost c, bool lmcache) { return (c == TierCost::kLmcacheSync) == lmcache; }

TierCostSet active_tier_costs(TierCostSet wanted, const VllmVersion& v, bool lmcache) {
  auto set = TierCostSet::none();
  for (int i = 0; i < kTierCostCount; ++i) {
    const auto c = static_cast<TierCost>(i);
    if (wanted.on(c) && applies_to(c, v) && belongs_to_connector(c, lmcache)) set = set.with(c);
  }
  return set;
}

bool tier_costs_assumed_for(const VllmVersion& v) {
  return kTierCostsReadUpTo < v &&
         (v.major != kTierCostsReadUpTo.major || v.minor != kTierCostsReadUpTo.minor);
}

// Up to the 0.19 cut, ops.swap_blocks issues one cudaMemcpyAsync per block (csrc/cache_kernels.cu)
// from the worker, before the forward pass; #38460 (merged 2026-04-03, after the 0.19 cut) makes it
// one cuMemcpyBatchAsync per job. The scheduler touches every block of a request that stores
// (offloading/scheduler.py: lru touch, a Python OrderedDict move_to_end per block): 0.3 us per
// block is an estimate of that Python loop, not a measurement.
ConnectorWork connector_work(const VllmVersion& v) {
  ConnectorWork w;
  w.one_call_per_block = v < VllmVersion{0, 20, 0};
  w.per_block_touched_s = 0.3e-6;
  return w;
}

}  // namespace kvb
