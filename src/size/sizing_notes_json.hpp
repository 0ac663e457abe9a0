#pragma once
// size's notes as facts in its JSON document (issue 54 §2, the sizing_warnings_json pattern): each
// an object {"kind": "<tag>", <its fields>}, read back as the same fact, so
// output/size/sizing_advice_text's sizing_note_text words a read-back document as it words a live
// run. docs/size.md lists each kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/sizing_advice.hpp"

namespace kvb {

// {"kind": "context-suffix", "given": "128k", "tokens": 128000}, ...
nlohmann::json sizing_note_to_json(const SizingNote& n);
// The fact `sizing_note_to_json` wrote. A string is a note from a document written before notes
// were facts: it reads as CatalogNote{text}, the note that is worded where it comes from, so it is
// worded as it was written. UsageError naming `origin`, "notes" and the kinds kvbench writes for an
// unknown kind; numbers range-checked.
SizingNote sizing_note_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in SizingNote's order ("catalog", "sliding-window", ...).
std::vector<std::string> sizing_note_kinds();

// The document's "notes" list; absent reads as none.
nlohmann::json sizing_notes_json(const std::vector<SizingNote>& notes);
std::vector<SizingNote> read_sizing_notes(const nlohmann::json& record, const std::string& origin);

}  // namespace kvb
