#pragma once
// The server a scenario describes: vLLM's sizing flags (server/serve_settings.hpp) plus what only
// the simulator reads. Held by the scenario (sim/scenario.hpp) and read by every command that
// takes a server; the simulator gives the eviction kinds and tier costs their behaviour.
#include <cstdint>
#include <optional>
#include <string>

#include "server/serve_settings.hpp"
#include "server/tier_cost_set.hpp"

namespace kvb {

// The CPU tier's eviction policy: "lru" or "arc" (sim/eviction_policy.hpp).
enum class EvictionKind { kLru, kArc };

// The GPU every command assumes when none is named: size, trace and calibrate --from-vllm without
// --hw, a scenario without a hardware key, and report's default assessment where it detects none.
inline constexpr const char* kDefaultHardware = "h100";

// vLLM's sizing flags (server/serve_settings.hpp) plus what only the simulator reads.
struct ServerSpec : ServeSettings {
  std::string model = "llama-3.1-8b";
  std::string hardware = kDefaultHardware;
  std::optional<std::int64_t> num_gpu_blocks_override;
  bool enable_prefix_caching = true;
  EvictionKind eviction_policy = EvictionKind::kLru;
  int store_threshold = 1;  // offload a block once seen this many times
  EvictionKind secondary_eviction_policy =
      EvictionKind::kLru;                       // the secondary tier's (sim/secondary_tier.hpp)
  TierCostSet tier_costs = TierCostSet::all();  // what an enabled tier costs the engine, by mechanism
  // vLLM's --[no-]scheduler-reserve-full-isl; absent: the release's default (sim/engine_loop.hpp)
  std::optional<bool> scheduler_reserve_full_isl;
};

}  // namespace kvb
