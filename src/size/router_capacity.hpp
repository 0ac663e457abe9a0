#pragma once
// What llm-d's approximate prefix-cache producer needs to know of one server, in its own units
// (issue: llm-d users size `lruCapacityPerServer` by hand because vLLM publishes no tier capacity,
// llm-d PR #1869, llm-d-router PR #2292). Computed from the sizing, not measured.
//
// The producer keeps, per server, an LRU of prompt-block hashes it has sent there; an entry is a
// block of at least 64 tokens whatever the server's block size (llm-d-router
// pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix/plugin.go,
// minBlockSizeTokens = 64, GetBlockSize). With autoTune (its default) the LRU holds as many entries
// as the server publishes GPU blocks (makeserver: the endpoint's CacheNumBlocks, vLLM's
// num_gpu_blocks), so with vLLM's 16-token blocks it remembers four times the tokens the server
// holds. A CPU tier has no published capacity: llm-d's tiered guide gives its producer
// `autoTune: false` and `lruCapacityPerServer` by hand (llm-d guides/tiered-prefix-cache/router/
// single-host/tiered-prefix-cache-cpu.values.yaml).
#include <cstdint>
#include <optional>

namespace kvb {

struct OffloadPlan;
struct SizingFit;
struct SizingPlan;

inline constexpr int kLlmdMinPrefixBlockTokens = 64;

struct PrefixProducerCapacity {
  std::int64_t server_tokens = 0;            // what the server holds (GPU pool, or the CPU tier)
  std::int64_t lru_capacity_per_server = 0;  // entries: server_tokens / block_size_tokens
};

struct RouterCapacities {
  int server_block_size = 16;      // vLLM's --block-size
  int producer_block_tokens = 64;  // the producer's entry: max(server block, 64)
  PrefixProducerCapacity gpu;
  std::int64_t autotune_gpu_entries = 0;      // what autoTune takes: vLLM's num_gpu_blocks
  std::optional<PrefixProducerCapacity> cpu;  // absent without a recommended CPU tier
  // autoTune's entries x the producer's block over the pool's tokens (4 for 16-token blocks).
  double autotune_overstates() const;
};

// The producer's settings for one replica of `s` (per engine: vLLM's counts are per engine, the
// same on every rank): the GPU pool's context tokens and the recommended tier's tokens.
RouterCapacities llmd_router_capacities(const SizingPlan& s);
// The same for the pool of `fit` with `tier` (none: no CPU tier), a tier a caller chose before
// the commands are written (advise/workload_sizing: a simulated one).
RouterCapacities llmd_router_capacities(const SizingFit& fit, const OffloadPlan* tier);

}  // namespace kvb
