#pragma once
// The one wording of the KV layout's facts (size/kv_layout.hpp): the per-token derivation, why the
// KV is replicated and where the block size comes from, for the size text (the derivation's steps
// also for a size document read back).
#include <string>
#include <vector>

#include "size/kv_layout.hpp"

namespace kvb {

// One line per step: a live layout's, or a size document's read back (size/kv_derivation_json).
std::vector<std::string> kv_derivation_lines(const std::vector<KvDerivationStep>& steps);
std::vector<std::string> kv_derivation_lines(const KvLayout& l);
std::string replication_text(const KvReplication& r);
std::string block_size_reason_text(const KvLayout& l);

}  // namespace kvb
