#pragma once
// size's engine notes (SGLang's HiCache, Dynamo's KVBM, LMCache) as facts in its JSON document
// (issue 54 §2, the sizing_warnings_json pattern): each an object {"kind": "<tag>", <its fields>},
// read back as the same fact, so output/size/engine_notes_text words a read-back document as it
// words a live run. docs/size.md lists each kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/engine_notes.hpp"

namespace kvb {

// {"kind": "lmcache-size-per-rank", "gib": 512, "ranks": 8}, ...
nlohmann::json engine_note_to_json(const EngineNote& n);
// The fact `engine_note_to_json` wrote. A string is a note from a document written before engine
// notes were facts: it reads as WordedEngineNote{text}, worded as it was written. UsageError naming
// `origin`, "engine_notes" and the kinds kvbench writes for an unknown kind; numbers range-checked.
EngineNote engine_note_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in EngineNote's order ("sglang-host-raised", ...).
std::vector<std::string> engine_note_kinds();

// The document's "engine_notes" list; absent reads as none.
nlohmann::json engine_notes_json(const std::vector<EngineNote>& notes);
std::vector<EngineNote> read_engine_notes(const nlohmann::json& record, const std::string& origin);

}  // namespace kvb
