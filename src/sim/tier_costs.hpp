#pragma once
// What an enabled CPU tier costs a vLLM server, one mechanism at a time. Each mechanism has its
// source and the vLLM releases it applies to beside its figures (tier_costs.cpp, docs/accuracy.md)
// and can be switched off (scenario key `tier-costs`) to see its share of a result.
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/vllm_host_memory.hpp"
#include "server/tier_cost_set.hpp"

namespace kvb {

std::string to_string(TierCost c);  // fabric-sharing, connector-cpu, kernel-sms, ...
// "all", "none" or mechanism names; UsageError naming `what` and the accepted names otherwise.
TierCostSet parse_tier_costs(const std::vector<std::string>& names, const std::string& what);
std::vector<std::string> tier_cost_names(TierCostSet set);  // the names on, in enum order

// The newest vLLM source the mechanisms were read in: main of 2026-05-24, after the 0.22 cut (0.23
// was released on 2026-06-15). A later release is assumed to behave as that one, and is noted.
inline constexpr VllmVersion kTierCostsReadUpTo{0, 22, 0};
bool tier_costs_assumed_for(const VllmVersion& v);

// Whether the vLLM release `v` has the behaviour behind `c` (tier_costs.cpp: the pull request that
// brought or removed it, per mechanism).
bool applies_to(TierCost c, const VllmVersion& v);

// The mechanisms of `wanted` that act on an engine with a non-empty CPU tier served by release `v`
// through the native connector or LMCache's (an empty tier is no connector: none act).
TierCostSet active_tier_costs(TierCostSet wanted, const VllmVersion& v, bool lmcache);

// The connector's CPU work before each forward pass, on the step's critical path.
struct ConnectorWork {
  // Per block copy submitted: <= 0.19 issues one cudaMemcpyAsync per block (the link's measured
  // per-copy time stands for its CPU cost); from 0.20 one batched call per job.
  bool one_call_per_block = true;
  double per_block_touched_s = 0;  // the scheduler's LRU touch of every block of a storing request
};
ConnectorWork connector_work(const VllmVersion& v);

// Whether mechanism `c` belongs to the connector `lmcache` names: lmcache-sync is LMCache's, the
// others vLLM's native OffloadingConnector's (tier_costs.cpp).
bool belongs_to_connector(TierCost c, bool lmcache);

// LMCache's vLLM connector (LMCache 0.4.x, lmcache/integration/vllm/vllm_v1_adapter.py): KV moves in
// chunks of 256 tokens (config chunk_size), only full chunks of the prompt are stored
// (save_unfull_chunk and save_decode_cache are off by default).
inline constexpr std::int64_t kLmcacheChunkTokens = 256;

}  // namespace kvb
