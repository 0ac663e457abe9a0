#pragma once
// simulate's notes and the GPU blocks' origin as facts in its JSON document (issue 54 §2): each
// note an object {"kind": "<tag>", <its fields>}, read back as the same fact, so a printer words a
// read-back document as it words a live run (output/simulate/sim_notes_text). No sentence is
// written beside a fact: docs/simulate.md lists each kind and its fields.
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "sim/sim_notes.hpp"

namespace kvb {

// {"kind": "tensor-parallel", "fabric_known": true, "scored": false, "ranks": 8}, ...
nlohmann::json sim_note_to_json(const SimNote& n);
// The fact `sim_note_to_json` wrote. A string is a note from a document written before notes were
// facts: it reads as ModelNote{text}, worded as it was written. UsageError naming `origin`, "notes"
// and the kinds kvbench writes for an unknown kind; numbers range-checked (core/json_file).
SimNote sim_note_from_json(const nlohmann::json& j, const std::string& origin);
// The kinds kvbench writes, in SimNote's order ("model", "hybrid-folded", ...).
std::vector<std::string> sim_note_kinds();

// {"from": "override" | "sizing" | "hybrid-folded", "kv_bytes": ..., "hardware": ...}
nlohmann::json gpu_blocks_origin_to_json(const GpuBlocksOrigin& o);
GpuBlocksOrigin gpu_blocks_origin_from_json(const nlohmann::json& j, const std::string& origin);

// The simulate document's GPU blocks origin: the fact, or the words of a document written before
// it was one (key gpu_blocks_source), kept as written so the document round-trips.
using GpuBlocksRecord = std::variant<GpuBlocksOrigin, std::string>;

// The document's keys: "notes", a list of facts; "gpu_blocks_origin", the fact (a read-back older
// document's words are written back under its own key, "gpu_blocks_source").
nlohmann::json sim_notes_json(const std::vector<SimNote>& notes);
void write_gpu_blocks(const GpuBlocksRecord& gpu_blocks, nlohmann::json& doc);
// Absent "notes": none. Neither key: an empty string (what the oldest documents read as).
std::vector<SimNote> read_sim_notes(const nlohmann::json& doc, const std::string& origin);
GpuBlocksRecord read_gpu_blocks(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
