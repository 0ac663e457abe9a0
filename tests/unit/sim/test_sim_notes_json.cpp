// simulate's notes and the GPU blocks' origin are written as facts with a kind tag and read back as
// the same facts (sim/sim_notes_json); a document from before they were facts still reads.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "sim/sim_notes_json.hpp"

namespace kvb {
namespace {

// Field-by-field equality of two facts of the same kind (the structs carry no operator==).
bool same(const ModelNote& a, const ModelNote& b) { return a.text == b.text; }
bool same(const ContextDefaultedNote& a, const ContextDefaultedNote& b) { return a.tokens == b.tokens; }
bool same(const KernelSlowdownNote& a, const KernelSlowdownNote& b) {
  if (a.slowdown != b.slowdown || a.origin.has_value() != b.origin.has_value()) return false;
  return !a.origin || (a.origin->hardware == b.origin->hardware && a.origin->file == b.origin->file &&
                       a.origin->records == b.origin->records);
}
bool same(const FileTierNote& a, const FileTierNote& b) {
  return a.read_gbps == b.read_gbps && a.write_gbps == b.write_gbps && a.stated == b.stated;
}
bool same(const TierCostsAssumedNote& a, const TierCostsAssumedNote& b) {
  const auto eq = [](const VllmVersion& x, const VllmVersion& y) { return !(x < y) && !(y < x); };
  return eq(a.version, b.version) && eq(a.read_up_to, b.read_up_to);
}
bool same(const TensorParallelNote& a, const TensorParallelNote& b) {
  return a.fabric_known == b.fabric_known && a.scored == b.scored && a.ranks == b.ranks;
}
template <typename Fact>
bool same(const Fact&, const Fact&) {  // a fact with no fields: its kind is the whole fact
  return true;
}

bool same_note(const SimNote& a, const SimNote& b) {
  if (a.index() != b.index()) return false;
  return std::visit([&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
}

// One of every kind, with fields away from their defaults so a field dropped is seen.
std::vector<SimNote> one_of_each() {
  std::vector<SimNote> notes{
      ModelNote{"gpt-oss-120b: the catalog's MXFP4 weights are assumed"},
      HybridFoldedNote{},
      ContextDefaultedNote{123456},
      KernelSlowdownNote{.slowdown = 1.55,
                         .origin = SlowdownOrigin{.hardware = "", .file = "h200.json", .records = 3}},
      LmcacheInStepNote{},
      SimpleAsNativeNote{},
      FileTierNote{.read_gbps = 6.5, .write_gbps = 2.25, .stated = false},
      TierCostsAssumedNote{.version = {0, 35, 1}, .read_up_to = {0, 33, 0}},
      FabricSharedNote{},
      TensorParallelNote{.fabric_known = true, .scored = true, .ranks = 8},
      PipelineNote{}};
  return notes;
}

TEST(SimNotesJson, EveryKindRoundTripsAsTheSameFactUnderItsOwnTag) {
  const auto notes = one_of_each();
  ASSERT_EQ(notes.size(), std::variant_size_v<SimNote>);  // a new kind is added here too
  std::set<std::string> tags;
  for (std::size_t i = 0; i < notes.size(); ++i) {
    ASSERT_EQ(notes[i].index(), i);
    const auto j = sim_note_to_json(notes[i]);
    tags.insert(j.at("kind").get<std::string>());
    EXPECT_TRUE(same_note(sim_note_from_json(j, "t.json"), notes[i])) << j.dump();
    // Through text, as a document is read.
    EXPECT_TRUE(same_note(sim_note_from_json(nlohmann::json::parse(j.dump()), "t.json"), notes[i]));
  }
  EXPECT_EQ(tags.size(), notes.size());  // one tag per kind
  EXPECT_EQ(sim_note_kinds().size(), notes.size());
  // A measured slowdown's origin and an unknown one (null) both come back.
  const KernelSlowdownNote unknown{.slowdown = 1.0, .origin = std::nullopt};
  const auto j = sim_note_to_json(unknown);
  EXPECT_TRUE(j.at("origin").is_null());
  EXPECT_TRUE(same_note(sim_note_from_json(j, "t.json"), unknown));
}

TEST(SimNotesJson, TheFieldsAreNamedAsTheStructsAndTheVersionsAsReleases) {
  EXPECT_EQ(sim_note_to_json(TensorParallelNote{.fabric_known = false, .scored = false, .ranks = 4}),
            nlohmann::json::parse(R"({"kind": "tensor-parallel", "fabric_known": false, "scored": false,
                                      "ranks": 4})"));
  EXPECT_EQ(sim_note_to_json(TierCostsAssumedNote{.version = {0, 40, 0}, .read_up_to = {0, 33, 2}}),
            nlohmann::json::parse(R"({"kind": "tier-costs-assumed", "vllm_version": "0.40.0",
                                      "read_up_to": "0.33.2"})"));
  EXPECT_EQ(sim_note_to_json(PipelineNote{}), nlohmann::json::parse(R"({"kind": "pipeline"})"));
}

void expect_refused(const nlohmann::json& j, const std::vector<std::string>& words) {
  try {
    (void)sim_note_from_json(j, "old.json");
    ADD_FAILURE() << "read: " << j.dump();
  } catch (const UsageError& e) {
    for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

TEST(SimNotesJson, AnUnknownKindAndABadFieldAreRefusedByName) {
  expect_refused({{"kind", "quantum-tier"}},
                 {"old.json: notes", "'quantum-tier'", "model, hybrid-folded", "tensor-parallel, pipeline"});
  expect_refused(nlohmann::json::object(), {"old.json: notes", "kind ''"});
  expect_refused({{"kind", 5}}, {"old.json: notes", "kind ''", "expected one of model"});
  expect_refused(42, {"old.json: notes", "expected an object"});
  expect_refused({{"kind", "tensor-parallel"}, {"fabric_known", true}, {"scored", false}, {"ranks", 0}},
                 {"old.json: notes", "ranks"});
  expect_refused({{"kind", "tensor-parallel"}, {"fabric_known", "yes"}, {"scored", false}, {"ranks", 2}},
                 {"old.json: notes", "fabric_known", "true or false"});
  expect_refused({{"kind", "file-tier"}, {"read_gbps", -1}, {"write_gbps", 1}, {"stated", true}},
                 {"old.json: notes", "read_gbps"});
  expect_refused({{"kind", "tier-costs-assumed"}, {"vllm_version", "next"}, {"read_up_to", "0.33.0"}},
                 {"old.json: notes", "vllm_version", "'next'"});
  expect_refused({{"kind", "context-defaulted"}, {"tokens", 1.5}}, {"tokens"});
}

TEST(SimNotesJson, AnOlderDocumentsSentencesAreKeptAsWritten) {
  const auto n = sim_note_from_json("max-model-len defaulted to 8,192 tokens", "old.json");
  ASSERT_TRUE(std::holds_alternative<ModelNote>(n));
  EXPECT_EQ(std::get<ModelNote>(n).text, "max-model-len defaulted to 8,192 tokens");
  // Its GPU blocks' origin, a sentence under gpu_blocks_source, is kept and written back the same.
  const auto old = nlohmann::json::parse(R"({"gpu_blocks_source": "num-gpu-blocks-override",
                                             "notes": ["a", "b"]})");
  const auto record = read_gpu_blocks(old, "old.json");
  ASSERT_TRUE(std::holds_alternative<std::string>(record));
  nlohmann::json back;
  write_gpu_blocks(record, back);
  EXPECT_EQ(back, nlohmann::json::parse(R"({"gpu_blocks_source": "num-gpu-blocks-override"})"));
  EXPECT_EQ(read_sim_notes(old, "old.json").size(), 2u);
  EXPECT_TRUE(read_sim_notes(nlohmann::json::object(), "old.json").empty());
}

TEST(SimNotesJson, TheGpuBlocksOriginRoundTripsAndAnUnknownSourceIsRefused) {
  for (const GpuBlocksOrigin& o :
       {GpuBlocksOrigin{.from = GpuBlocksFrom::kSizing, .kv_bytes = 46.5 * (1ull << 30), .hardware = "h100"},
        GpuBlocksOrigin{.from = GpuBlocksFrom::kOverride, .kv_bytes = 0, .hardware = ""},
        GpuBlocksOrigin{.from = GpuBlocksFrom::kHybridFolded, .kv_bytes = 0, .hardware = ""}}) {
    nlohmann::json doc;
    write_gpu_blocks(o, doc);
    ASSERT_TRUE(doc.contains("gpu_blocks_origin"));
    EXPECT_FALSE(doc.contains("gpu_blocks_source"));
    const auto back = std::get<GpuBlocksOrigin>(read_gpu_blocks(doc, "t.json"));
    EXPECT_EQ(back.from, o.from);
    EXPECT_EQ(back.kv_bytes, o.kv_bytes);
    EXPECT_EQ(back.hardware, o.hardware);
  }
  for (const char* bad :
       {R"({"gpu_blocks_origin": {"from": "guess", "kv_bytes": 0}})", R"({"gpu_blocks_origin": 7})"}) {
    try {
      (void)read_gpu_blocks(nlohmann::json::parse(bad), "t.json");
      ADD_FAILURE() << "read: " << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("t.json: gpu_blocks_origin"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("expected "), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kvb
