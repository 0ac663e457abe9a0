// size's alternatives in its JSON are facts with a kind tag (issue 54 §2): each read back as the
// fact written, field by field, so a read-back document is worded as the live run was.
#include <gtest/gtest.h>

#include <set>
#include <variant>

#include "core/errors.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "size/sizing_advice_json.hpp"
#include "size/sizing_engine.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// A search that tried two configurations, found a third and a DP x EP one: every field set.
SearchTried tried_with_everything() {
  SearchTried t;
  t.too_small = {{1, 1, false}, {2, 1, true}};
  t.found = true;
  t.fits = {4, 2, true};
  t.tokens = 131'072;
  t.data_parallel = DataParallelTried{8, 1, 8, true, 0, 120'000, 950'000, true, true, 41.5, 88.25};
  return t;
}

// One of each kind, every field away from its default, so a field the writer or reader drops shows.
std::vector<SizingAlternative> one_of_each() {
  SearchTried nothing;  // nothing fit: `fits` written as null
  nothing.too_small = {{8, 1, false}};
  nothing.tokens = 32'768;
  return {DataParallelAttention{8},
          TpAtMostKvHeads{4},
          Fp8KvHalves{327'680, 1'234'567},
          ShorterContextFits{65'536},
          ConfigurationFits{ConfigurationFlags{4, 2, true, 8, 2, "h100"}, 9'001, 144'016, 37.75},
          NothingFits{tried_with_everything()},
          NothingFits{nothing},
          WordedAlternative{"an older document's words"}};
}

// Field by field, per kind (the structs have no operator==).
void expect_same(const ConfigurationLabel& a, const ConfigurationLabel& b) {
  EXPECT_EQ(a.tp, b.tp);
  EXPECT_EQ(a.pp, b.pp);
  EXPECT_EQ(a.fp8, b.fp8);
}
void expect_same(const DataParallelTried& a, const DataParallelTried& b) {
  EXPECT_EQ(a.dp, b.dp);
  EXPECT_EQ(a.tp, b.tp);
  EXPECT_EQ(a.tp_found, b.tp_found);
  EXPECT_EQ(a.mla, b.mla);
  EXPECT_EQ(a.kv_heads, b.kv_heads);
  EXPECT_EQ(a.tp_tokens, b.tp_tokens);
  EXPECT_EQ(a.engine_tokens, b.engine_tokens);
  EXPECT_EQ(a.engine_fits, b.engine_fits);
  EXPECT_EQ(a.chosen, b.chosen);
  EXPECT_EQ(a.weights_gib, b.weights_gib);
  EXPECT_EQ(a.tp_weights_gib, b.tp_weights_gib);
}
void expect_same(const DataParallelAttention& a, const DataParallelAttention& b) { EXPECT_EQ(a.tp, b.tp); }
void expect_same(const TpAtMostKvHeads& a, const TpAtMostKvHeads& b) { EXPECT_EQ(a.kv_heads, b.kv_heads); }
void expect_same(const Fp8KvHalves& a, const Fp8KvHalves& b) {
  EXPECT_EQ(a.bytes_per_token, b.bytes_per_token);
  EXPECT_EQ(a.gpu_tokens, b.gpu_tokens);
}
void expect_same(const ShorterContextFits& a, const ShorterContextFits& b) {
  EXPECT_EQ(a.max_model_len, b.max_model_len);
}
void expect_same(const ConfigurationFits& a, const ConfigurationFits& b) {
  EXPECT_EQ(a.flags.tp, b.flags.tp);
  EXPECT_EQ(a.flags.pp, b.flags.pp);
  EXPECT_EQ(a.flags.fp8, b.flags.fp8);
  EXPECT_EQ(a.flags.gpus, b.flags.gpus);
  EXPECT_EQ(a.flags.nodes, b.flags.nodes);
  EXPECT_EQ(a.flags.hardware, b.flags.hardware);
  EXPECT_EQ(a.gpu_blocks, b.gpu_blocks);
  EXPECT_EQ(a.gpu_tokens, b.gpu_tokens);
  EXPECT_EQ(a.weights_gib, b.weights_gib);
}
void expect_same(const NothingFits& a, const NothingFits& b) {
  ASSERT_EQ(a.tried.too_small.size(), b.tried.too_small.size());
  for (std::size_t i = 0; i < a.tried.too_small.size(); ++i)
    expect_same(a.tried.too_small[i], b.tried.too_small[i]);
  EXPECT_EQ(a.tried.found, b.tried.found);
  if (a.tried.found) expect_same(a.tried.fits, b.tried.fits);
  EXPECT_EQ(a.tried.tokens, b.tried.tokens);
  ASSERT_EQ(a.tried.data_parallel.has_value(), b.tried.data_parallel.has_value());
  if (a.tried.data_parallel) expect_same(*a.tried.data_parallel, *b.tried.data_parallel);
}
void expect_same(const WordedAlternative& a, const WordedAlternative& b) { EXPECT_EQ(a.text, b.text); }

TEST(SizingAdviceJson, EveryAlternativeKindIsWrittenWithItsTagAndReadBackFieldByField) {
  std::set<std::size_t> kinds;
  for (const auto& a : one_of_each()) {
    const auto j = sizing_alternative_to_json(a);
    // Text, not a dump: the document must survive a trip through a file.
    const auto back = sizing_alternative_from_json(json::parse(j.dump()), "size.json");
    ASSERT_EQ(back.index(), a.index()) << j.dump();
    std::visit([&](const auto& x) { expect_same(x, std::get<std::decay_t<decltype(x)>>(back)); }, a);
    EXPECT_EQ(sizing_alternative_text(back), sizing_alternative_text(a));
    EXPECT_EQ(j.at("kind").get<std::string>(), sizing_alternative_kinds().at(a.index()));
    kinds.insert(a.index());
  }
  EXPECT_EQ(kinds.size(), std::variant_size_v<SizingAlternative>) << "a kind with no round-trip case";
  const auto tags = sizing_alternative_kinds();
  EXPECT_EQ(std::set<std::string>(tags.begin(), tags.end()).size(), tags.size()) << "two kinds share a tag";
}

TEST(SizingAdviceJson, AnAlternativeKindKvbenchDoesNotWriteIsRefusedNamingTheAcceptedOnes) {
  try {
    sizing_alternative_from_json(json{{"kind", "buy-more-gpus"}}, "old.json");
    FAIL() << "an unknown kind was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old.json: alternatives"), std::string::npos) << what;
    EXPECT_NE(what.find("'buy-more-gpus'"), std::string::npos) << what;
    EXPECT_NE(what.find("data-parallel-attention"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing-fits"), std::string::npos) << what;
  }
  EXPECT_THROW(sizing_alternative_from_json(json(3), "old.json"), UsageError);
  EXPECT_THROW(read_sizing_alternatives(json{{"alternatives", "none"}}, "old.json"), UsageError);
}

TEST(SizingAdviceJson, AFigureOutOfRangeOrAMalformedSearchIsRefused) {
  auto shorter = sizing_alternative_to_json(ShorterContextFits{65'536});
  shorter["max_model_len"] = 0;  // a context of no tokens is not a suggestion
  EXPECT_THROW(sizing_alternative_from_json(shorter, "x.json"), UsageError);
  auto fits =
      sizing_alternative_to_json(ConfigurationFits{ConfigurationFlags{4, 1, false, 4, 1, "h100"}, 1, 16, 30});
  fits["tp"] = 2.5;  // ranks are whole
  EXPECT_THROW(sizing_alternative_from_json(fits, "x.json"), UsageError);
  auto nothing = sizing_alternative_to_json(NothingFits{tried_with_everything()});
  nothing["tried"]["too_small"] = json::array({json{{"tp", 2}}});  // no pp, no fp8
  EXPECT_THROW(sizing_alternative_from_json(nothing, "x.json"), UsageError);
  auto no_tried = sizing_alternative_to_json(NothingFits{tried_with_everything()});
  no_tried.erase("tried");
  EXPECT_THROW(sizing_alternative_from_json(no_tried, "x.json"), UsageError);
}

// Llama-3.1-70B's 131.5 GiB of bf16 weights on one 80 GB H100 do not fit (test_configuration_search
// works the figures): the sizing names TP 4 as the first that fits, among its alternatives.
Sizing unfit_sizing() {
  auto in = test::inputs("llama-3.1-70b");
  in.max_model_len = 32768;
  return compute_sizing(in);
}

TEST(SizingAdviceJson, ALiveSizingsAlternativesAreWordedAsItsDocumentReadBack) {
  const auto s = unfit_sizing();
  ASSERT_FALSE(s.alternatives.empty());
  const json doc = {{"results", json::array({sizing_to_json(s)})}};
  const auto back = size_document_from_json(json::parse(doc.dump()), "size.json");
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_EQ(sizing_alternative_lines(back.results[0].alternatives), sizing_alternative_lines(s.alternatives));
  for (const auto& a : back.results[0].alternatives)
    EXPECT_FALSE(std::holds_alternative<WordedAlternative>(a));
}

TEST(SizingAdviceJson, ADocumentWrittenBeforeAlternativesWereFactsStillReadsItsWords) {
  const auto s = unfit_sizing();
  auto result = sizing_to_json(s);
  const auto words = sizing_alternative_lines(s.alternatives);
  result["alternatives"] = words;  // as the writer wrote them before
  const auto back = size_document_from_json(json{{"results", json::array({result})}}, "old.json");
  const auto& read = back.results.at(0).alternatives;
  ASSERT_EQ(read.size(), s.alternatives.size());
  for (const auto& a : read) EXPECT_TRUE(std::holds_alternative<WordedAlternative>(a));
  EXPECT_EQ(sizing_alternative_lines(read), words);
  // and written back as the worded facts they are
  const auto again = sizing_alternatives_json(read);
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again.at(0).at("kind"), "worded");
  EXPECT_EQ(again.at(0).at("text"), words.at(0));
}

}  // namespace
}  // namespace kvb
