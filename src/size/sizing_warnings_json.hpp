#pragma once
// size's warnings as facts in its JSON document (issue 54 §2, the sim_notes_json pattern): each an
// object {"kind": "<tag>", <its fields>}, read back as the same fact, so output/size's
// sizing_warning_text words a read-back document as it words a live run. docs/size.md lists each
// kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/sizing_warnings.hpp"

namespace kvb {

// {"kind": "ranks-beyond-node", "ranks": 16, "gpus_per_node": 8, "hardware": "H100"}, ...
nlohmann::json sizing_warning_to_json(const SizingWarning& w);
// The fact `sizing_warning_to_json` wrote. A string is a warning from a document written before
// warnings were facts: it reads as WordedWarning{text}, worded as it was written. UsageError naming
// `origin`, "warnings" and the kinds kvbench writes for an unknown kind; numbers range-checked.
SizingWarning sizing_warning_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in SizingWarning's order ("context-beyond-trained", ...).
std::vector<std::string> sizing_warning_kinds();

// The document's "warnings" list; absent reads as none.
nlohmann::json sizing_warnings_json(const std::vector<SizingWarning>& warnings);
std::vector<SizingWarning> read_sizing_warnings(const nlohmann::json& record, const std::string& origin);

}  // namespace kvb
