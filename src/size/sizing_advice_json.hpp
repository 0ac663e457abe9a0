#pragma once
// size's alternatives as facts in its JSON document (issue 54 §2, the sizing_warnings_json pattern):
// each an object {"kind": "<tag>", <its fields>}, read back as the same fact, so
// output/size/sizing_advice_text words a read-back document as it words a live run. docs/size.md
// lists each kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/sizing_advice.hpp"

namespace kvb {

// {"kind": "shorter-context-fits", "max_model_len": 65536}, ...
nlohmann::json sizing_alternative_to_json(const SizingAlternative& a);
// The fact `sizing_alternative_to_json` wrote. A string is an alternative from a document written
// before alternatives were facts: it reads as WordedAlternative{text}, worded as written. UsageError
// naming `origin`, "alternatives" and the kinds kvbench writes for an unknown kind; numbers
// range-checked.
SizingAlternative sizing_alternative_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in SizingAlternative's order ("data-parallel-attention", ...).
std::vector<std::string> sizing_alternative_kinds();

// The document's "alternatives" list; absent reads as none.
nlohmann::json sizing_alternatives_json(const std::vector<SizingAlternative>& alternatives);
std::vector<SizingAlternative> read_sizing_alternatives(const nlohmann::json& record,
                                                        const std::string& origin);

// What the configuration search tried ({"too_small": [...], "fits": ..., "tokens": ...,
// "data_parallel": ...}): an alternative's, and a note's (sizing_notes_json). The reader takes the
// object holding it under "tried".
nlohmann::json search_tried_to_json(const SearchTried& t);
SearchTried search_tried_field(const nlohmann::json& j, const std::string& where);

}  // namespace kvb
