#pragma once
// The tier's real host footprint in words, for size's text and doctor's table.
#include <string>
#include <vector>

#include "catalog/vllm_host_memory.hpp"

namespace kvb {

// "64.0 GiB on the host for a 40 GiB tier (1.60x: ...)", then why and the source, one line each.
std::vector<std::string> host_memory_lines(const HostFootprint& f);

}  // namespace kvb
