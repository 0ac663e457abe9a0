#include "sim/memory_estimate.hpp"

#include <fmt/format.h>

#include <string>

#include "core/errors.hpp"
#include "sim/kv_block_manager.hpp"

namespace kvb {

double simulation_table_bytes(const SimulationSetup& setup) {
  return static_cast<double>(setup.scenario.fleet.replicas) * static_cast<double>(setup.gpu_blocks) *
         static_cast<double>(KvBlockManager::bytes_per_block());
}

void require_memory_for(const SimulationSetup& setup, std::uint64_t available) {
  const double need = simulation_table_bytes(setup);
  if (available == 0 || need <= static_cast<double>(available)) return;
  const auto blocks = setup.gpu_blocks;
  const std::string input = setup.gpu_blocks_origin.from == GpuBlocksFrom::kOverride
                                ? fmt::format("num-gpu-blocks-override {}", blocks)
                                : fmt::format("the GPU KV cache sized for {} ({} blocks)",
                                              setup.gpu_blocks_origin.hardware, blocks);
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  throw UsageError(fmt::format(
      "{} on {} replica(s): the simulator's block tables alone need {:.1f} GiB ({} bytes a block, every "
      "block from the start), past the {:.1f} GiB this machine has available; expected fewer GPU blocks or "
      "replicas",
      input, setup.scenario.fleet.replicas, need / kGiB, KvBlockManager::bytes_per_block(),
      static_cast<double>(available) / kGiB));
}

}  // namespace kvb
