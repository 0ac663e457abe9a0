#pragma once
// The one wording of each simulation note (sim/sim_notes.hpp holds the facts): what the simulate
// text and its JSON both print.
#include <string>

#include "sim/sim_notes.hpp"

namespace kvb {

std::string sim_note_text(const SimNote& n);
// "sizing engine: 43.2 GiB KV cache on h100", "num-gpu-blocks-override", ...
std::string gpu_blocks_text(const GpuBlocksOrigin& o);

}  // namespace kvb
