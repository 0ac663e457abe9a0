#pragma once
// vLLM's native CPU tier (vllm/v1/kv_offload/cpu/spec.py) and the recommended --kv-offloading-size.
#include "size/sizing.hpp"

namespace kvb {

// Reads the fit (size_fit: `layout`, `world_size`, `max_model_len`, `blocks_per_request`,
// `max_concurrency`, `num_gpu_blocks` and `gpu_kv_tokens`); plan_sizing calls it. The plan carries the rule's
// recommendation (basis rule) and the figures that follow from its size.
OffloadPlan plan_offload(const SizingFit& s, const SizingInputs& in);

// The plan with another recommendation (a simulated one, from advise/) and what follows from its
// size (0 = no CPU tier): blocks, tokens, per-rank figures, the pinning time. `s` is the fit of
// the plan it belongs to; the result is handed to with_commands (sizing_engine.hpp).
OffloadPlan with_recommendation(OffloadPlan p, const SizingFit& s, const SizingInputs& in,
                                TierRecommendation r);

// CPU tensors one rank allocates for the tier (the pinned-tensor path rounds each one).
int cpu_tensors_per_rank(const KvLayout& layout, const VllmVersion& v);

// What a tier of `gib` takes on the host for in.vllm_version; none for engines other than vLLM's
// native tier (their allocators are not modelled).
std::optional<HostFootprint> tier_footprint(const SizingFit& s, const SizingInputs& in, double gib);

// vLLM's floor, the one rule: a write-through tier no larger than the aggregate GPU KV pool only
// mirrors it, so a size at or below the pool is raised to the first whole GiB above it where the
// host-DRAM cap allows; otherwise `gib` is returned unchanged.
double raise_to_floor(double gib, double floor_gib, double cap_gib);

// num_cpu_blocks = GiB x 2^30 // (block bytes per rank x world size), as vllm/v1/kv_offload/cpu/spec.py.
std::int64_t cpu_blocks_for(double gib, std::int64_t cpu_block_bytes);

}  // namespace kvb
