#include "size/sizing_notes_json.hpp"

#include "core/json_file.hpp"
#include "core/units.hpp"
#include "size/fact_json.hpp"
#include "size/sizing_advice_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a sizing can write: layers, groups, blocks, bytes per token.
constexpr std::int64_t kMaxLayers = 1 << 20;
constexpr std::int64_t kMaxBytesPerToken = std::int64_t{1} << 50;
constexpr std::int64_t kMaxWindow = std::int64_t{1} << 30;  // tokens, and an int

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const CatalogNote&) { return "catalog"; }
const char* kind_of(const SlidingWindowNote&) { return "sliding-window"; }
const char* kind_of(const Fp8AtLoadNote&) { return "fp8-at-load"; }
const char* kind_of(const SearchNote&) { return "search"; }
const char* kind_of(const ContextSuffixNote&) { return "context-suffix"; }
const char* kind_of(const TierCoverageNote&) { return "tier-coverage"; }

// Each fact's fields, named as its struct's; Fp8AtLoadNote has none and writes its kind alone.
void put(const CatalogNote& n, json& j) { j["text"] = n.text; }
void put(const SlidingWindowNote& n, json& j) {
  j["sliding_layers"] = n.sliding_layers;
  j["layers"] = n.layers;
  j["window"] = n.window;
  j["blocks"] = n.blocks;
  j["groups"] = n.groups;
}
void put(const Fp8AtLoadNote&, json&) {}
void put(const SearchNote& n, json& j) { j["tried"] = search_tried_to_json(n.tried); }
void put(const ContextSuffixNote& n, json& j) {
  j["given"] = n.given;
  j["tokens"] = n.tokens;
}
void put(const TierCoverageNote& n, json& j) {
  j["layout"] = tag_of(kOffloadLayoutTags, n.kind);
  j["status"] = tag_of(kOffloadStatusTags, n.status);
  j["vllm_version"] = to_string(n.version);  // not "version": golden.py drops that key as the tool's
  j["full_groups"] = n.full_groups;
  j["sliding_groups"] = n.sliding_groups;
  j["mamba_groups"] = n.mamba_groups;
  j["group_layers"] = n.group_layers;
  j["block_size"] = n.block_size;
  j["tier_bytes_per_token"] = n.tier_bytes_per_token;
  j["context_bytes_per_token"] = n.context_bytes_per_token;
  j["indexer_bytes_per_token"] = n.indexer_bytes_per_token;
  j["needs"] = n.needs;
  j["source"] = n.source;
}

using NoteFields = FactFields;  // each error naming `origin: notes`

void get(const NoteFields& r, const json& j, CatalogNote& n) { n.text = r.text(j, "text"); }
void get(const NoteFields& r, const json& j, SlidingWindowNote& n) {
  n.sliding_layers = r.whole(j, "sliding_layers", 0, kMaxLayers);
  n.layers = r.whole(j, "layers", 0, kMaxLayers);
  n.window = r.whole(j, "window", 0, kMaxWindow);
  n.blocks = json_integer_in(j, "blocks", 0, kMaxTokens, r.where());
  n.groups = r.whole(j, "groups", 1, kMaxLayers);
}
void get(const NoteFields&, const json&, Fp8AtLoadNote&) {}
void get(const NoteFields& r, const json& j, SearchNote& n) { n.tried = search_tried_field(j, r.where()); }
void get(const NoteFields& r, const json& j, ContextSuffixNote& n) {
  n.given = r.text(j, "given");
  n.tokens = json_integer_in(j, "tokens", 1, kMaxTokens, r.where());
}
void get(const NoteFields& r, const json& j, TierCoverageNote& n) {
  n.kind = r.tagged(j, "layout", kOffloadLayoutTags);
  n.status = r.tagged(j, "status", kOffloadStatusTags);
  n.version = r.version(j, "vllm_version");
  n.full_groups = r.whole(j, "full_groups", 0, kMaxLayers);
  n.sliding_groups = r.whole(j, "sliding_groups", 0, kMaxLayers);
  n.mamba_groups = r.whole(j, "mamba_groups", 0, kMaxLayers);
  n.group_layers = r.whole(j, "group_layers", 0, kMaxLayers);
  n.block_size = r.whole(j, "block_size", 1, kMaxLayers);
  n.tier_bytes_per_token = json_integer_in(j, "tier_bytes_per_token", 0, kMaxBytesPerToken, r.where());
  n.context_bytes_per_token = json_integer_in(j, "context_bytes_per_token", 0, kMaxBytesPerToken, r.where());
  n.indexer_bytes_per_token = json_integer_in(j, "indexer_bytes_per_token", 0, kMaxBytesPerToken, r.where());
  n.needs = r.text(j, "needs");
  n.source = r.text(j, "source");
}

// The walk of SizingNote's alternatives (core/json_facts) with this file's tags.
const auto kNoteKind = [](const auto& fact) { return kind_of(fact); };

}  // namespace

std::vector<std::string> sizing_note_kinds() { return fact_kinds<SizingNote>(kNoteKind); }

json sizing_note_to_json(const SizingNote& n) {
  return fact_to_json(n, kNoteKind, [](const auto& fact, json& j) { put(fact, j); });
}

SizingNote sizing_note_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return CatalogNote{j.get<std::string>()};  // written before notes were facts
  const NoteFields r(origin + ": notes");
  return fact_from_json<SizingNote>(
      j, r, "a note", kNoteKind, [](const NoteFields& fr, const json& f, auto& fact) { get(fr, f, fact); });
}

json sizing_notes_json(const std::vector<SizingNote>& notes) {
  return fact_list_json(notes, sizing_note_to_json);
}

std::vector<SizingNote> read_sizing_notes(const json& record, const std::string& origin) {
  return read_fact_list<SizingNote>(record, "notes", origin,
                                    [&](const json& item) { return sizing_note_from_json(item, origin); });
}

}  // namespace kvb
