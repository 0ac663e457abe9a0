#pragma once
// Checks that every copy of a case landed: destination bytes equal the source pattern.
#include <string>
#include <vector>

#include "dma/transfer_case.hpp"

namespace kvb {

// `dst` is a host-visible copy of the destination pool; `src_pool` names the source pattern.
// Returns "" when all copies match, else the first mismatch described.
std::string verify_copies(const std::vector<CopyOp>& ops, const void* dst, std::uint64_t seed,
                          std::uint64_t src_pool);

}  // namespace kvb
