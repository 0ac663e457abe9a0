#pragma once
// --block: a list ("4KB,16KB,2MiB") or a power-of-two range ("4KiB..64MiB").
#include <cstdint>
#include <string>
#include <vector>

namespace kvb {

// Throws UsageError for malformed sizes, zero, a reversed range, or more than 64 sizes.
// `what` names the option in messages (storage's --chunk reads the same syntax).
std::vector<std::uint64_t> parse_block_sizes(const std::string& text, const std::string& what = "--block");

}  // namespace kvb
