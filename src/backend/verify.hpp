#pragma once
// Checks that every copy of a case landed: destination bytes equal the source pattern. Both
// helpers spread large work over the host's threads (core/parallel.hpp).
#include <string>
#include <vector>

#include "dma/transfer_case.hpp"

namespace kvb {

// `dst` is a host-visible copy of the destination pool; `src_pool` names the source pattern.
// Returns "" when all copies match, else the first mismatch (lowest copy index) described.
std::string verify_copies(const std::vector<CopyOp>& ops, const void* dst, std::uint64_t seed,
                          std::uint64_t src_pool);

// Zeroes each copy's destination bytes in `dst` (a host-visible pool) before a verified copy.
void clear_destinations(const std::vector<CopyOp>& ops, void* dst);

}  // namespace kvb
