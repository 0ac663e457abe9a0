#include "size/router_capacity.hpp"

#include <algorithm>

#include "size/sizing.hpp"

namespace kvb {

double RouterCapacities::autotune_overstates() const {
  if (gpu.server_tokens <= 0) return 0;
  return static_cast<double>(autotune_gpu_entries) * producer_block_tokens /
         static_cast<double>(gpu.server_tokens);
}

RouterCapacities llmd_router_capacities(const Sizing& s) {
  RouterCapacities r;
  r.server_block_size = std::max(1, s.layout.block_size);
  r.producer_block_tokens = std::max(r.server_block_size, kLlmdMinPrefixBlockTokens);
  // A hybrid model's num_gpu_blocks counts every group's blocks: the context the pool holds is
  // what a prefix can reuse.
  r.gpu.server_tokens = s.gpu_context_tokens();
  r.gpu.lru_capacity_per_server = r.gpu.server_tokens / r.producer_block_tokens;
  r.autotune_gpu_entries = s.num_gpu_blocks;
  if (s.offload && s.offload->recommended_gib() > 0 && s.offload->cpu_tokens > 0) {
    const auto tokens = s.offload->cpu_tokens;
    r.cpu = PrefixProducerCapacity{tokens, tokens / r.producer_block_tokens};
  }
  return r;
}

}  // namespace kvb
