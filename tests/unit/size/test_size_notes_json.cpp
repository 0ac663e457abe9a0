// size's notes, engine notes and KV derivation steps in its JSON are facts with a kind tag (issue 54
// §2): each read back as the fact written, field by field, so a read-back document is worded as the
// live run was; an older document's sentences still read, as the worded facts they are.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/errors.hpp"
#include "output/size/engine_notes_text.hpp"
#include "output/size/kv_layout_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "size/engine_notes_json.hpp"
#include "size/kv_derivation_json.hpp"
#include "size/sizing_inputs.hpp"
#include "size/sizing_notes_json.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// One of each kind, every field away from its default, so a field the writer or reader drops shows.
std::vector<SizingNote> notes_of_each_kind() {
  SearchTried tried;
  tried.too_small = {{1, 1, false}, {2, 1, true}};
  tried.found = true;
  tried.fits = {4, 2, true};
  tried.tokens = 131'072;
  tried.data_parallel = DataParallelTried{8, 1, 8, true, 0, 120'000, 950'000, true, true, 41.5, 88.25};
  TierCoverageNote coverage{.kind = OffloadLayoutKind::kSlidingHybrid,
                            .status = OffloadStatus::kOffloadsPerGroup,
                            .version = VllmVersion{0, 27, 1},
                            .full_groups = 1,
                            .sliding_groups = 2,
                            .mamba_groups = 3,
                            .group_layers = 18,
                            .block_size = 64,
                            .tier_bytes_per_token = 73'728,
                            .context_bytes_per_token = 36'864,
                            .indexer_bytes_per_token = 7'000,
                            .needs = "--no-disable-hybrid-kv-cache-manager",
                            .source = "vllm/v1/kv_offload/cpu.py"};
  return {CatalogNote{"a model card's caveat"},
          SlidingWindowNote{18, 36, 128, 9, 2},
          Fp8AtLoadNote{},
          SearchNote{tried},
          ContextSuffixNote{"128k", 128'000},
          coverage};
}

std::vector<EngineNote> engine_notes_of_each_kind() {
  return {SglangHostRaised{38, 36.9},
          SglangHicacheSize{280, 4, 75.162},
          SglangHicacheRatio{2.25, 36.9},
          SglangLayouts{},
          KvbmCacheSize{8, 344.5, 370, 176'428, 16, 2'097'152},
          KvbmAgainstGpuPool{137.6, true, true},
          KvbmInitTimeout{212.5, 400},
          KvbmStandalone{},
          LmcacheSizePerRank{64.5, 2},
          LmcacheEnvironment{},
          WordedEngineNote{"an older document's words"}};
}

std::vector<KvDerivationStep> steps_of_each_kind() {
  return {MlaSparseFp8Step{512, 16, 128, 656}, MlaLatentStep{512, 64, 2, 1'152}, IndexerStep{128, 4, 132},
          KvHeadsStep{true, 2, 8, 4, 128, 2, 1'024}, WordedDerivationStep{"an older document's step"}};
}

// Field by field, per kind (the structs have no operator==).
void expect_same(const SearchTried& a, const SearchTried& b) {
  ASSERT_EQ(a.too_small.size(), b.too_small.size());
  for (std::size_t i = 0; i < a.too_small.size(); ++i) {
    EXPECT_EQ(a.too_small[i].tp, b.too_small[i].tp);
    EXPECT_EQ(a.too_small[i].pp, b.too_small[i].pp);
    EXPECT_EQ(a.too_small[i].fp8, b.too_small[i].fp8);
  }
  EXPECT_EQ(a.found, b.found);
  EXPECT_EQ(a.fits.tp, b.fits.tp);
  EXPECT_EQ(a.fits.pp, b.fits.pp);
  EXPECT_EQ(a.fits.fp8, b.fits.fp8);
  EXPECT_EQ(a.tokens, b.tokens);
  ASSERT_EQ(a.data_parallel.has_value(), b.data_parallel.has_value());
  if (!a.data_parallel) return;
  const auto &x = *a.data_parallel, &y = *b.data_parallel;
  EXPECT_EQ(std::tie(x.dp, x.tp, x.tp_found, x.mla, x.kv_heads, x.tp_tokens, x.engine_tokens, x.engine_fits,
                     x.chosen, x.weights_gib, x.tp_weights_gib),
            std::tie(y.dp, y.tp, y.tp_found, y.mla, y.kv_heads, y.tp_tokens, y.engine_tokens, y.engine_fits,
                     y.chosen, y.weights_gib, y.tp_weights_gib));
}
void expect_same(const CatalogNote& a, const CatalogNote& b) { EXPECT_EQ(a.text, b.text); }
void expect_same(const SlidingWindowNote& a, const SlidingWindowNote& b) {
  EXPECT_EQ(std::tie(a.sliding_layers, a.layers, a.window, a.blocks, a.groups),
            std::tie(b.sliding_layers, b.layers, b.window, b.blocks, b.groups));
}
void expect_same(const Fp8AtLoadNote&, const Fp8AtLoadNote&) {}
void expect_same(const SearchNote& a, const SearchNote& b) { expect_same(a.tried, b.tried); }
void expect_same(const ContextSuffixNote& a, const ContextSuffixNote& b) {
  EXPECT_EQ(a.given, b.given);
  EXPECT_EQ(a.tokens, b.tokens);
}
void expect_same(const TierCoverageNote& a, const TierCoverageNote& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(to_string(a.version), to_string(b.version));
  EXPECT_EQ(std::tie(a.full_groups, a.sliding_groups, a.mamba_groups, a.group_layers, a.block_size),
            std::tie(b.full_groups, b.sliding_groups, b.mamba_groups, b.group_layers, b.block_size));
  EXPECT_EQ(std::tie(a.tier_bytes_per_token, a.context_bytes_per_token, a.indexer_bytes_per_token),
            std::tie(b.tier_bytes_per_token, b.context_bytes_per_token, b.indexer_bytes_per_token));
  EXPECT_EQ(std::tie(a.needs, a.source), std::tie(b.needs, b.source));
}
void expect_same(const SglangHostRaised& a, const SglangHostRaised& b) {
  EXPECT_EQ(std::tie(a.host_gb, a.device_gb), std::tie(b.host_gb, b.device_gb));
}
void expect_same(const SglangHicacheSize& a, const SglangHicacheSize& b) {
  EXPECT_EQ(std::tie(a.gib, a.ranks, a.per_rank_gb), std::tie(b.gib, b.ranks, b.per_rank_gb));
}
void expect_same(const SglangHicacheRatio& a, const SglangHicacheRatio& b) {
  EXPECT_EQ(std::tie(a.ratio, a.device_gb), std::tie(b.ratio, b.device_gb));
}
void expect_same(const KvbmCacheSize& a, const KvbmCacheSize& b) {
  EXPECT_EQ(std::tie(a.ranks, a.gib, a.cache_gb, a.host_blocks, a.block_tokens, a.block_bytes),
            std::tie(b.ranks, b.gib, b.cache_gb, b.host_blocks, b.block_tokens, b.block_bytes));
}
void expect_same(const KvbmAgainstGpuPool& a, const KvbmAgainstGpuPool& b) {
  EXPECT_EQ(std::tie(a.gpu_pool_gib, a.above, a.simulated), std::tie(b.gpu_pool_gib, b.above, b.simulated));
}
void expect_same(const KvbmInitTimeout& a, const KvbmInitTimeout& b) {
  EXPECT_EQ(std::tie(a.pin_s, a.timeout_s), std::tie(b.pin_s, b.timeout_s));
}
void expect_same(const LmcacheSizePerRank& a, const LmcacheSizePerRank& b) {
  EXPECT_EQ(std::tie(a.gib, a.ranks), std::tie(b.gib, b.ranks));
}
void expect_same(const SglangLayouts&, const SglangLayouts&) {}
void expect_same(const KvbmStandalone&, const KvbmStandalone&) {}
void expect_same(const LmcacheEnvironment&, const LmcacheEnvironment&) {}
void expect_same(const WordedEngineNote& a, const WordedEngineNote& b) { EXPECT_EQ(a.text, b.text); }
void expect_same(const MlaSparseFp8Step& a, const MlaSparseFp8Step& b) {
  EXPECT_EQ(std::tie(a.latent, a.scale_bytes, a.rope, a.bytes),
            std::tie(b.latent, b.scale_bytes, b.rope, b.bytes));
}
void expect_same(const MlaLatentStep& a, const MlaLatentStep& b) {
  EXPECT_EQ(std::tie(a.kv_lora_rank, a.rope, a.dtype_bytes, a.bytes),
            std::tie(b.kv_lora_rank, b.rope, b.dtype_bytes, b.bytes));
}
void expect_same(const IndexerStep& a, const IndexerStep& b) {
  EXPECT_EQ(std::tie(a.head_dim, a.scale_bytes, a.bytes), std::tie(b.head_dim, b.scale_bytes, b.bytes));
}
void expect_same(const KvHeadsStep& a, const KvHeadsStep& b) {
  EXPECT_EQ(std::tie(a.mha, a.heads_per_rank, a.kv_heads, a.tp, a.head_dim, a.dtype_bytes, a.bytes),
            std::tie(b.mha, b.heads_per_rank, b.kv_heads, b.tp, b.head_dim, b.dtype_bytes, b.bytes));
}
void expect_same(const WordedDerivationStep& a, const WordedDerivationStep& b) { EXPECT_EQ(a.text, b.text); }

// Each fact written, parsed from text (it must survive a file), read back: the same kind, every
// field, the same words; every kind of the variant met once, and no two kinds share a tag.
template <typename Variant, typename To, typename From, typename Word>
void expect_round_trip(const std::vector<Variant>& facts, const std::vector<std::string>& kinds, To to,
                       From from, Word word) {
  std::set<std::size_t> met;
  for (const auto& f : facts) {
    const json j = to(f);
    const Variant back = from(json::parse(j.dump()), "size.json");
    ASSERT_EQ(back.index(), f.index()) << j.dump();
    std::visit([&](const auto& x) { expect_same(x, std::get<std::decay_t<decltype(x)>>(back)); }, f);
    EXPECT_EQ(word(back), word(f));
    EXPECT_EQ(j.at("kind").template get<std::string>(), kinds.at(f.index()));
    met.insert(f.index());
  }
  EXPECT_EQ(met.size(), std::variant_size_v<Variant>) << "a kind with no round-trip case";
  EXPECT_EQ(std::set<std::string>(kinds.begin(), kinds.end()).size(), kinds.size())
      << "two kinds share a tag";
}

TEST(SizeNotesJson, EveryNoteKindIsWrittenWithItsTagAndReadBackFieldByField) {
  expect_round_trip(notes_of_each_kind(), sizing_note_kinds(), sizing_note_to_json, sizing_note_from_json,
                    sizing_note_text);
}

TEST(SizeNotesJson, EveryEngineNoteKindIsWrittenWithItsTagAndReadBackFieldByField) {
  expect_round_trip(engine_notes_of_each_kind(), engine_note_kinds(), engine_note_to_json,
                    engine_note_from_json, engine_note_text);
}

TEST(SizeNotesJson, EveryDerivationStepKindIsWrittenWithItsTagAndReadBackFieldByField) {
  expect_round_trip(steps_of_each_kind(), kv_derivation_step_kinds(), kv_derivation_step_to_json,
                    kv_derivation_step_from_json,
                    [](const KvDerivationStep& s) { return kv_derivation_lines({s}).at(0); });
}

// The refusal names the file, the key, the kind given and the kinds kvbench writes.
template <typename From>
void expect_kind_refused(From from, const std::string& key, const std::string& accepted) {
  try {
    from(json{{"kind", "made-up"}}, "old.json");
    ADD_FAILURE() << key << ": an unknown kind was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old.json: " + key), std::string::npos) << what;
    EXPECT_NE(what.find("'made-up'"), std::string::npos) << what;
    EXPECT_NE(what.find(accepted), std::string::npos) << what;
  }
  EXPECT_THROW(from(json(3), "old.json"), UsageError);  // neither a fact nor an older sentence
}

TEST(SizeNotesJson, AKindKvbenchDoesNotWriteIsRefusedNamingTheAcceptedOnes) {
  expect_kind_refused(sizing_note_from_json, "notes", "context-suffix, tier-coverage");
  expect_kind_refused(engine_note_from_json, "engine_notes", "kvbm-cache-size");
  expect_kind_refused(kv_derivation_step_from_json, "derivation", "mla-latent, indexer, kv-heads");
  EXPECT_THROW(read_sizing_notes(json{{"notes", "none"}}, "old.json"), UsageError);
  EXPECT_THROW(read_engine_notes(json{{"engine_notes", 1}}, "old.json"), UsageError);
  EXPECT_THROW(read_kv_derivation(json{{"derivation", json::object()}}, "old.json"), UsageError);
}

TEST(SizeNotesJson, AFigureOutOfRangeOrAnUnknownTagIsRefused) {
  auto heads = kv_derivation_step_to_json(KvHeadsStep{false, 1, 8, 8, 128, 2, 512});
  heads["tp"] = 0;  // a layout has at least one rank
  EXPECT_THROW(kv_derivation_step_from_json(heads, "x.json"), UsageError);
  auto lmcache = engine_note_to_json(LmcacheSizePerRank{64, 2});
  lmcache["ranks"] = 2.5;  // ranks are whole
  EXPECT_THROW(engine_note_from_json(lmcache, "x.json"), UsageError);
  auto coverage = sizing_note_to_json(std::get<TierCoverageNote>(notes_of_each_kind().back()));
  coverage["status"] = "sometimes";
  EXPECT_THROW(sizing_note_from_json(coverage, "x.json"), UsageError);
  auto suffix = sizing_note_to_json(ContextSuffixNote{"32k", 32'000});
  suffix["tokens"] = -1;
  EXPECT_THROW(sizing_note_from_json(suffix, "x.json"), UsageError);
}

// Live sizings whose notes, engine notes and derivation span the kinds: gpt-oss-120b (sliding
// window, the tier's per-group coverage), DeepSeek-V3.2 at TP 8 (fp8_ds_mla latent and the indexer),
// Llama-3.1-8B with --max-model-len 32k under SGLang, Dynamo and LMCache (their engine notes).
std::vector<Sizing> live_sizings() {
  std::vector<Sizing> out;
  auto sliding = test::inputs("gpt-oss-120b", "h100");
  sliding.max_model_len = 32768;
  out.push_back(compute_sizing(sliding));
  auto sparse = test::inputs("deepseek-v3.2", "h200", 8);
  sparse.kv.kv_cache_dtype = "fp8";  // fp8_ds_mla
  sparse.max_model_len = 32768;
  out.push_back(compute_sizing(sparse));
  for (const auto engine : {EngineKind::kSglang, EngineKind::kDynamo, EngineKind::kLmcache}) {
    ServeSettings serve;
    serve.max_model_len = 32768;
    serve.max_model_len_as_written = "32k";
    NodeOverrides node;
    node.engine = engine;
    // as `kvbench size` sizes it: the --max-model-len suffix is noted by size_configurations
    auto sized = size_configurations({test::model("llama-3.1-8b")}, {resolve_hardware("h100")}, serve, node);
    out.push_back(sized.results.at(0));
  }
  return out;
}

TEST(SizeNotesJson, ALiveSizingsNotesEngineNotesAndStepsAreWordedAsItsDocumentReadBack) {
  const auto sizings = live_sizings();
  json doc = {{"results", json::array()}};
  for (const auto& s : sizings) doc["results"].push_back(sizing_to_json(s));
  const auto back = size_document_from_json(json::parse(doc.dump()), "size.json");
  ASSERT_EQ(back.results.size(), sizings.size());
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < sizings.size(); ++i) {
    const auto& live = sizings[i];
    const auto& read = back.results[i];
    EXPECT_EQ(sizing_note_lines(read.notes), sizing_note_lines(live.notes));
    EXPECT_EQ(engine_note_lines(read.engine_notes), engine_note_lines(live.engine_notes));
    EXPECT_EQ(kv_derivation_lines(read.layout.derivation), kv_derivation_lines(live.layout));
    for (const auto& n : read.notes) kinds.insert(sizing_note_kinds().at(n.index()));
    for (const auto& n : read.engine_notes) kinds.insert(engine_note_kinds().at(n.index()));
    for (const auto& s : read.layout.derivation) kinds.insert(kv_derivation_step_kinds().at(s.index()));
  }
  // The sizings above do reach these kinds, so the comparison is not of empty lists.
  for (const auto* kind :
       {"sliding-window", "tier-coverage", "context-suffix", "sglang-hicache-size", "kvbm-cache-size",
        "lmcache-size-per-rank", "mla-sparse-fp8", "indexer", "kv-heads"})
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
  EXPECT_EQ(kinds.count("worded"), 0u) << "a live sizing's fact read back as words";
}

TEST(SizeNotesJson, ADocumentWrittenBeforeTheseWereFactsStillReadsItsWords) {
  const auto sizings = live_sizings();
  const auto& s = sizings.back();  // LMCache's: engine notes, notes and a GQA step
  auto result = sizing_to_json(s);
  // as the writer wrote them before
  result["notes"] = sizing_note_lines(s.notes);
  result["engine_notes"] = engine_note_lines(s.engine_notes);
  result["derivation"] = kv_derivation_lines(s.layout);
  const auto back = size_document_from_json(json{{"results", json::array({result})}}, "old.json");
  const auto& read = back.results.at(0);
  ASSERT_FALSE(read.notes.empty());
  ASSERT_FALSE(read.engine_notes.empty());
  ASSERT_FALSE(read.layout.derivation.empty());
  for (const auto& n : read.notes) EXPECT_TRUE(std::holds_alternative<CatalogNote>(n));
  for (const auto& n : read.engine_notes) EXPECT_TRUE(std::holds_alternative<WordedEngineNote>(n));
  for (const auto& d : read.layout.derivation) EXPECT_TRUE(std::holds_alternative<WordedDerivationStep>(d));
  EXPECT_EQ(sizing_note_lines(read.notes), sizing_note_lines(s.notes));  // worded as given
  EXPECT_EQ(engine_note_lines(read.engine_notes), engine_note_lines(s.engine_notes));
  EXPECT_EQ(kv_derivation_lines(read.layout.derivation), kv_derivation_lines(s.layout));
  // and written back as the worded facts they are
  const auto again = sizing_to_json(read);
  EXPECT_EQ(again.at("notes").at(0).at("kind"), "catalog");
  EXPECT_EQ(again.at("engine_notes").at(0).at("kind"), "worded");
  EXPECT_EQ(again.at("derivation").at(0).at("kind"), "worded");
}

}  // namespace
}  // namespace kvb
