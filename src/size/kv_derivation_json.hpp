#pragma once
// size's KV derivation (how the per-token figure of one layer on one rank was computed) as facts in
// its JSON document (issue 54 §2, the sizing_warnings_json pattern): each step an object
// {"kind": "<tag>", <its fields>}, read back as the same fact, so output/size/kv_layout_text's
// kv_derivation_lines words a read-back document as it words a live run. docs/size.md lists each
// kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/kv_layout.hpp"

namespace kvb {

// {"kind": "mla-latent", "kv_lora_rank": 512, "rope": 64, "dtype_bytes": 2, "bytes": 1152}, ...
nlohmann::json kv_derivation_step_to_json(const KvDerivationStep& s);
// The fact `kv_derivation_step_to_json` wrote. A string is a step from a document written before
// steps were facts: it reads as WordedDerivationStep{text}, worded as it was written. UsageError
// naming `origin`, "derivation" and the kinds kvbench writes for an unknown kind; numbers
// range-checked.
KvDerivationStep kv_derivation_step_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in KvDerivationStep's order ("mla-sparse-fp8", ...).
std::vector<std::string> kv_derivation_step_kinds();

// The document's "derivation" list; absent reads as none.
nlohmann::json kv_derivation_json(const std::vector<KvDerivationStep>& steps);
std::vector<KvDerivationStep> read_kv_derivation(const nlohmann::json& record, const std::string& origin);

}  // namespace kvb
