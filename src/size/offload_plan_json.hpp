#pragma once
// The CPU tier as planned, as facts in the size document ("offload"): its blocks, the sessions it
// keeps warm, the cap and floor, a given size, and the sizing rule's figures ("rule"), which
// output/size/offload_rule_text words for the text and for a document read back alike. The
// recommendation and the host footprint have their own keys (output/size/size_json, catalog).
#include <nlohmann/json.hpp>
#include <string>

#include "size/sizing.hpp"

namespace kvb {

nlohmann::json offload_to_json(const OffloadPlan& o);
// The "offload" object's own keys into `o`; every figure range-checked (UsageError naming
// `where`). A document written before the rule's figures were recorded has its words
// ("reasoning", "sessions_reason") instead: `o.rule` stays empty.
void read_offload(const nlohmann::json& j, const std::string& where, OffloadPlan& o);

}  // namespace kvb
