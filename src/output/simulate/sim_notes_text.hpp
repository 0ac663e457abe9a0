#pragma once
// The one wording of each simulation note (sim/sim_notes.hpp holds the facts): what simulate's text
// prints for a live run and the report prints for a read-back simulate document, word for word.
#include <string>
#include <variant>

#include "sim/sim_notes.hpp"

namespace kvb {

std::string sim_note_text(const SimNote& n);
// "sizing engine: 43.2 GiB KV cache on h100", "num-gpu-blocks-override", ...
std::string gpu_blocks_text(const GpuBlocksOrigin& o);
// A read-back document's: the fact worded, or an older document's words as they were written.
std::string gpu_blocks_text(const std::variant<GpuBlocksOrigin, std::string>& o);

}  // namespace kvb
