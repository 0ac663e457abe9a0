#include "sim/sim_notes_json.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "core/json_facts.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest figures a run can write: a link's slowdown factor, a file tier's GB/s, bytes, ranks.
constexpr double kMaxSlowdown = 1e3;
constexpr double kMaxGbps = 1e6;
constexpr double kMaxBytes = 1e21;
constexpr std::int64_t kMaxRanks = 1 << 20;

// Each fact's kind tag (stable: documents are read back by later releases).
const char* kind_of(const ModelNote&) { return "model"; }
const char* kind_of(const HybridFoldedNote&) { return "hybrid-folded"; }
const char* kind_of(const ContextDefaultedNote&) { return "context-defaulted"; }
const char* kind_of(const KernelSlowdownNote&) { return "kernel-slowdown"; }
const char* kind_of(const LmcacheInStepNote&) { return "lmcache-in-step"; }
const char* kind_of(const SimpleAsNativeNote&) { return "simple-as-native"; }
const char* kind_of(const FileTierNote&) { return "file-tier"; }
const char* kind_of(const TierCostsAssumedNote&) { return "tier-costs-assumed"; }
const char* kind_of(const FabricSharedNote&) { return "fabric-shared"; }
const char* kind_of(const TensorParallelNote&) { return "tensor-parallel"; }
const char* kind_of(const PipelineNote&) { return "pipeline"; }

// Each fact's fields, named as its struct's; a fact with none writes its kind alone.
void put(const ModelNote& n, json& j) { j["text"] = n.text; }
void put(const ContextDefaultedNote& n, json& j) { j["tokens"] = n.tokens; }
void put(const KernelSlowdownNote& n, json& j) {
  j["slowdown"] = n.slowdown;
  j["origin"] =
      n.origin
          ? json{{"hardware", n.origin->hardware}, {"file", n.origin->file}, {"records", n.origin->records}}
          : json(nullptr);  // not known: the table has no figure and no result gave one
}
void put(const FileTierNote& n, json& j) {
  j["read_gbps"] = n.read_gbps;
  j["write_gbps"] = n.write_gbps;
  j["stated"] = n.stated;
}
void put(const TierCostsAssumedNote& n, json& j) {
  j["vllm_version"] = to_string(n.version);  // not "version": golden.py drops that key as the tool's
  j["read_up_to"] = to_string(n.read_up_to);
}
void put(const TensorParallelNote& n, json& j) {
  j["fabric_known"] = n.fabric_known;
  j["scored"] = n.scored;
  j["ranks"] = n.ranks;
}
template <typename Fact>
void put(const Fact&, json&) {}

// A note's fields read back, each error naming where (`origin: notes`).
class NoteFields : public JsonFields {
 public:
  using JsonFields::JsonFields;
  VllmVersion version(const json& j, const char* key) const { return vllm_version_field(*this, j, key); }
};

void get(const NoteFields& r, const json& j, ModelNote& n) { n.text = r.text(j, "text"); }
void get(const NoteFields& r, const json& j, ContextDefaultedNote& n) {
  n.tokens = json_integer_in(j, "tokens", 1, kMaxTokens, r.where());
}
void get(const NoteFields& r, const json& j, KernelSlowdownNote& n) {
  n.slowdown = r.required(j, "slowdown", kMaxSlowdown);
  const auto it = j.find("origin");
  if (it == j.end() || it->is_null()) return;
  const auto& o = *it;
  n.origin = SlowdownOrigin{.hardware = r.text(o, "hardware"),
                            .file = r.text(o, "file"),
                            .records = static_cast<std::size_t>(r.count(o, "records", kMaxTokens))};
}
void get(const NoteFields& r, const json& j, FileTierNote& n) {
  n.read_gbps = r.required(j, "read_gbps", kMaxGbps);
  n.write_gbps = r.required(j, "write_gbps", kMaxGbps);
  n.stated = r.flag(j, "stated");
}
void get(const NoteFields& r, const json& j, TierCostsAssumedNote& n) {
  n.version = r.version(j, "vllm_version");
  n.read_up_to = r.version(j, "read_up_to");
}
void get(const NoteFields& r, const json& j, TensorParallelNote& n) {
  n.fabric_known = r.flag(j, "fabric_known");
  n.scored = r.flag(j, "scored");
  n.ranks = static_cast<int>(json_integer_in(j, "ranks", 1, kMaxRanks, r.where()));
}
template <typename Fact>
void get(const NoteFields&, const json&, Fact&) {}

const char* from_key(GpuBlocksFrom f) {
  switch (f) {
    case GpuBlocksFrom::kOverride:
      return "override";
    case GpuBlocksFrom::kHybridFolded:
      return "hybrid-folded";
    case GpuBlocksFrom::kSizing:
      break;
  }
  return "sizing";
}

}  // namespace

std::vector<std::string> sim_note_kinds() {
  return fact_kinds<SimNote>([](const auto& n) { return kind_of(n); });
}

json sim_note_to_json(const SimNote& n) {
  return fact_to_json(
      n, [](const auto& f) { return kind_of(f); }, [](const auto& f, json& j) { put(f, j); });
}

SimNote sim_note_from_json(const json& j, const std::string& origin) {
  if (j.is_string()) return ModelNote{j.get<std::string>()};  // a document from before notes were facts
  return fact_from_json<SimNote>(
      j, NoteFields(origin + ": notes"), "a note", [](const auto& f) { return kind_of(f); },
      [](const NoteFields& r, const json& f, auto& fact) { get(r, f, fact); });
}

json gpu_blocks_origin_to_json(const GpuBlocksOrigin& o) {
  return {{"from", from_key(o.from)}, {"kv_bytes", o.kv_bytes}, {"hardware", o.hardware}};
}

GpuBlocksOrigin gpu_blocks_origin_from_json(const json& j, const std::string& origin) {
  const JsonFields r(origin + ": gpu_blocks_origin");
  if (!j.is_object()) {
    throw UsageError(fmt::format("{} is a {}; expected an object with from, kv_bytes and hardware", r.where(),
                                 j.type_name()));
  }
  GpuBlocksOrigin o;
  const auto from = r.text(j, "from");
  bool known = false;
  for (const auto f : {GpuBlocksFrom::kOverride, GpuBlocksFrom::kSizing, GpuBlocksFrom::kHybridFolded}) {
    if (from != from_key(f)) continue;
    o.from = f;
    known = true;
  }
  if (!known) {
    throw UsageError(
        fmt::format("{}: field 'from' is '{}'; expected override, sizing or hybrid-folded", r.where(), from));
  }
  o.kv_bytes = r.required(j, "kv_bytes", kMaxBytes);
  o.hardware = r.text(j, "hardware");
  return o;
}

json sim_notes_json(const std::vector<SimNote>& notes) { return fact_list_json(notes, sim_note_to_json); }

void write_gpu_blocks(const GpuBlocksRecord& gpu_blocks, json& doc) {
  if (const auto* words = std::get_if<std::string>(&gpu_blocks)) {
    doc["gpu_blocks_source"] = *words;  // an older document's, read back: written as it was
  } else {
    doc["gpu_blocks_origin"] = gpu_blocks_origin_to_json(std::get<GpuBlocksOrigin>(gpu_blocks));
  }
}

std::vector<SimNote> read_sim_notes(const json& doc, const std::string& origin) {
  return read_fact_list<SimNote>(doc, "notes", origin,
                                 [&](const json& n) { return sim_note_from_json(n, origin); });
}

GpuBlocksRecord read_gpu_blocks(const json& doc, const std::string& origin) {
  if (const auto it = doc.find("gpu_blocks_origin"); it != doc.end()) {
    return gpu_blocks_origin_from_json(*it, origin);
  }
  return JsonFields(origin).text(doc, "gpu_blocks_source");  // older: the words, kept as written
}

}  // namespace kvb
