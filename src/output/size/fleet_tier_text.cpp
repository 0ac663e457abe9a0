#include "output/size/fleet_tier_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"

namespace kvb {

std::vector<std::string> llmd_router_lines(const RouterCapacities& r) {
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("llm-d router (approx-prefix-cache-producer, computed): its entries are {}-token blocks "
                  "(the larger of --block-size {} and its 64-token floor); per replica:",
                  r.producer_block_tokens, r.server_block_size));
  lines.push_back(fmt::format(
      "  gpu-prefix-cache-producer: autoTune: false, lruCapacityPerServer: {}  (the GPU pool's {} "
      "tokens / {}; autoTune takes num_gpu_blocks, {} entries, {:.1f}x what the pool holds)",
      r.gpu.lru_capacity_per_server, format_count(r.gpu.server_tokens), r.producer_block_tokens,
      r.autotune_gpu_entries, r.autotune_overstates()));
  if (r.cpu) {
    lines.push_back(fmt::format(
        "  cpu-prefix-cache-producer: autoTune: false, lruCapacityPerServer: {}  (the CPU tier's {} "
        "tokens / {}; vLLM publishes no tier capacity to tune from)",
        r.cpu->lru_capacity_per_server, format_count(r.cpu->server_tokens), r.producer_block_tokens));
  } else {
    lines.push_back("  cpu-prefix-cache-producer: none (no CPU tier recommended)");
  }
  return lines;
}

// size --replicas: the tier per replica, the fleet's host memory, the spread between replicas at
// the recommended size, and the other router's answer on the same traffic.
std::string fleet_tier_lines(const TierRecommendation& r) {
  const auto& f = *r.fleet;
  std::string out = fmt::format(
      "  fleet: {} replicas behind a {} router, simulated together; the size is per replica (each engine's "
      "--kv-offloading-size)\n",
      f.fleet.replicas, to_string(f.fleet.router));
  if (f.host_bytes_per_replica > 0) {
    out += fmt::format(
        "  fleet host memory: {:.1f} GB per replica, {} replica{} per node: {:.1f} GB per node, {:.1f} GB "
        "across {} node{}\n",
        f.host_bytes_per_replica / 1e9, f.replicas_per_node, f.replicas_per_node == 1 ? "" : "s",
        f.host_bytes_per_node / 1e9, f.host_bytes_total / 1e9, f.nodes, f.nodes == 1 ? "" : "s");
  }
  for (const auto& c : r.curve) {
    if (c.kv_offloading_size_gib != r.kv_offloading_size_gib) continue;
    out += fmt::format(
        "  between replicas at {:g} GiB: the busiest's TTFT p99 {} (the fleet's {}); prefix hits from "
        "{:.1f}% "
        "to {:.1f}% of each replica's prompt tokens\n",
        c.kv_offloading_size_gib, format_seconds(c.busiest_ttft_p99_s), format_seconds(c.ttft_p99_s),
        c.replica_hit_rate_min * 100, c.replica_hit_rate_max * 100);
  }
  if (f.compared_router) {
    const auto verdict =
        f.compared_pays
            ? fmt::format("{:g} GiB per replica (gain {:+.1f}% in {})", f.compared_gib, f.compared_gain * 100,
                          f.compared_metric ? to_string(*f.compared_metric) : "-")
            : std::string("no CPU tier (nothing pays)");
    out += fmt::format("  the same traffic behind a {} router: {}\n", to_string(*f.compared_router), verdict);
  }
  if (f.router_capacities) {
    for (const auto& line : llmd_router_lines(*f.router_capacities)) out += "  " + line + "\n";
  }
  return out;
}

}  // namespace kvb
