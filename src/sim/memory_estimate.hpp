#pragma once
// What a simulation holds from its start, estimated before it allocates: each replica's GPU block
// table (sim/kv_block_manager: one entry a block, every block from the start). A run past the memory
// the machine has available is refused (exit 2) naming the input that asks for it, not allocated
// into std::bad_alloc after minutes.
#include <cstdint>

#include "sim/simulation_setup.hpp"

namespace kvb {

// Bytes of the block tables of `setup`'s replicas.
double simulation_table_bytes(const SimulationSetup& setup);
// Throws UsageError when simulation_table_bytes exceeds `available` (0: not known, not checked).
void require_memory_for(const SimulationSetup& setup, std::uint64_t available);

}  // namespace kvb
