#include "size/router_capacity.hpp"

#include <algorithm>

#include "size/sizing.hpp"

namespace kvb {

double RouterCapacities::autotune_overstates() const {
  if (gpu.server_tokens <= 0) return 0;
  return static_cast<double>(autotune_gpu_entries) * producer_block_tokens /
         static_cast<double>(gpu.server_tokens);
}

RouterCapacities llmd_router_capacities(const SizingFit& s, const OffloadPlan* tier) {
  RouterCapacities r;
  r.server_block_size = std::max(1, s.layout.block_size);
  r.producer_block_tokens = std::max(r.server_block_size, kLlmdMinPrefixBlockTokens);
  // A hybrid model's num_gpu_blocks counts every group's blocks: the context the pool holds is
  // what a prefix can reuse.
  r.gpu.server_tokens = s.gpu_context_tokens();
  r.gpu.lru_capacity_per_server = r.gpu.server_tokens / r.producer_block_tokens;
  r.autotune_gpu_entries = s.num_gpu_blocks;
  if (tier && tier->recommended_gib() > 0 && tier->cpu_tokens > 0) {
    const auto tokens = tier->cpu_tokens;
    r.cpu = PrefixProducerCapacity{tokens, tokens / r.producer_block_tokens};
  }
  return r;
}

RouterCapacities llmd_router_capacities(const SizingPlan& s) {
  return llmd_router_capacities(s, s.offload ? &*s.offload : nullptr);
}

}  // namespace kvb
