// size's warnings in its JSON are facts with a kind tag (issue 54 §2): each read back as the fact
// written, field by field, so a read-back document is worded as the live run was.
#include <gtest/gtest.h>

#include <set>
#include <variant>

#include "core/errors.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_warnings_json.hpp"
#include "test_helpers.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// One of each kind, every field away from its default, so a field the writer or reader drops shows.
std::vector<SizingWarning> one_of_each() {
  LinkProfile link;
  link.origin.figures = LinkFigures::kFitted;
  link.origin.file = "--link-profile 'host.json'";
  link.origin.device = "host";
  link.origin.method = "memcpy";
  link.origin.host_backend = true;
  return {
      ContextBeyondTrained{200'000, "llama-3.1-8b", 131'072, "YaRN x4"},
      ReplicatedKv{KvReplication{ReplicationCause::kFewKvHeads, 16, 8}, 2},
      TierRefused{OffloadLayoutKind::kMambaHybrid, VllmVersion{0, 19, 1}, GpuVendor::kAmd, "no hybrid",
                  "vllm#1"},
      SlidingAsFull{24, 8192, 12288, VllmVersion{0, 20, 0}},
      LmcachePerRank{70.5, 282, 4},
      TierBeyondHostDram{3000, 2048},
      TierBeyondCap{900, 715, 0.7},
      KvCacheMemoryTooLarge{90e9, 20.5, 79.6, 14.7},
      RanksBeyondNode{16, 8, "h100"},
      WorkloadServerKeysIgnored{"chat.yaml", {"hardware", "tensor_parallel_size"}, "chat.yaml --as-written"},
      WorkloadNotSimulated{NotSimulatedWorkload{"chat.yaml", false}},
      HostBackendLink{link},
      TierRegionPinFails{600, VllmVersion{0, 18, 0}, true},
      DraftZeroesTierHits{3, VllmVersion{0, 20, 1}},
      WordedWarning{"an older document's words"}};
}

// Field by field, per kind (the structs have no operator==).
void expect_same(const ContextBeyondTrained& a, const ContextBeyondTrained& b) {
  EXPECT_EQ(a.max_model_len, b.max_model_len);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.extension, b.extension);
}
void expect_same(const ReplicatedKv& a, const ReplicatedKv& b) {
  EXPECT_EQ(a.replication.cause, b.replication.cause);
  EXPECT_EQ(a.replication.tp, b.replication.tp);
  EXPECT_EQ(a.replication.kv_heads, b.replication.kv_heads);
  EXPECT_EQ(a.copies, b.copies);
}
void expect_same(const TierRefused& a, const TierRefused& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(to_string(a.version), to_string(b.version));
  EXPECT_EQ(a.vendor, b.vendor);
  EXPECT_EQ(a.failure, b.failure);
  EXPECT_EQ(a.source, b.source);
}
void expect_same(const SlidingAsFull& a, const SlidingAsFull& b) {
  EXPECT_EQ(a.sliding_layers, b.sliding_layers);
  EXPECT_EQ(a.bytes_per_token_hybrid, b.bytes_per_token_hybrid);
  EXPECT_EQ(a.bytes_per_token_full, b.bytes_per_token_full);
  ASSERT_EQ(a.by_connector.has_value(), b.by_connector.has_value());
  if (a.by_connector) {
    EXPECT_EQ(to_string(*a.by_connector), to_string(*b.by_connector));
  }
}
void expect_same(const LmcachePerRank& a, const LmcachePerRank& b) {
  EXPECT_EQ(a.per_rank_gib, b.per_rank_gib);
  EXPECT_EQ(a.total_gib, b.total_gib);
  EXPECT_EQ(a.ranks, b.ranks);
}
void expect_same(const TierBeyondHostDram& a, const TierBeyondHostDram& b) {
  EXPECT_EQ(a.given_gib, b.given_gib);
  EXPECT_EQ(a.host_gib, b.host_gib);
}
void expect_same(const TierBeyondCap& a, const TierBeyondCap& b) {
  EXPECT_EQ(a.given_gib, b.given_gib);
  EXPECT_EQ(a.cap_gib, b.cap_gib);
  EXPECT_EQ(a.dram_fraction, b.dram_fraction);
}
void expect_same(const KvCacheMemoryTooLarge& a, const KvCacheMemoryTooLarge& b) {
  EXPECT_EQ(a.kv_bytes, b.kv_bytes);
  EXPECT_EQ(a.other_gib, b.other_gib);
  EXPECT_EQ(a.total_gib, b.total_gib);
  EXPECT_EQ(a.exceeds_gib, b.exceeds_gib);
}
void expect_same(const RanksBeyondNode& a, const RanksBeyondNode& b) {
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.gpus_per_node, b.gpus_per_node);
  EXPECT_EQ(a.hardware, b.hardware);
}
void expect_same(const WorkloadServerKeysIgnored& a, const WorkloadServerKeysIgnored& b) {
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.simulate_as, b.simulate_as);
}
void expect_same(const WorkloadNotSimulated& a, const WorkloadNotSimulated& b) {
  EXPECT_EQ(a.workload.workload, b.workload.workload);
  EXPECT_EQ(a.workload.weights_fit, b.workload.weights_fit);
}
void expect_same(const HostBackendLink& a, const HostBackendLink& b) {
  EXPECT_EQ(a.link.origin.figures, b.link.origin.figures);
  EXPECT_EQ(a.link.origin.file, b.link.origin.file);
  EXPECT_EQ(a.link.origin.device, b.link.origin.device);
  EXPECT_EQ(a.link.origin.method, b.link.origin.method);
  EXPECT_EQ(a.link.origin.host_backend, b.link.origin.host_backend);
}
void expect_same(const TierRegionPinFails& a, const TierRegionPinFails& b) {
  EXPECT_EQ(a.tier_gib, b.tier_gib);
  EXPECT_EQ(to_string(a.version), to_string(b.version));
  EXPECT_EQ(a.given, b.given);
}
void expect_same(const DraftZeroesTierHits& a, const DraftZeroesTierHits& b) {
  EXPECT_EQ(a.draft_layers, b.draft_layers);
  EXPECT_EQ(to_string(a.version), to_string(b.version));
}
void expect_same(const WordedWarning& a, const WordedWarning& b) { EXPECT_EQ(a.text, b.text); }

TEST(SizingWarningsJson, EveryKindIsWrittenWithItsTagAndReadBackFieldByField) {
  std::set<std::size_t> kinds;
  for (const auto& w : one_of_each()) {
    const auto j = sizing_warning_to_json(w);
    // Text, not a dump: the document must survive a trip through a file.
    const auto back = sizing_warning_from_json(json::parse(j.dump()), "size.json");
    ASSERT_EQ(back.index(), w.index()) << j.dump();
    std::visit([&](const auto& x) { expect_same(x, std::get<std::decay_t<decltype(x)>>(back)); }, w);
    EXPECT_EQ(sizing_warning_text(back), sizing_warning_text(w));
    EXPECT_EQ(j.at("kind").get<std::string>(), sizing_warning_kinds().at(w.index()));
    kinds.insert(w.index());
  }
  EXPECT_EQ(kinds.size(), std::variant_size_v<SizingWarning>);  // every kind is covered above
}

TEST(SizingWarningsJson, AKindKvbenchDoesNotWriteIsRefusedNamingTheAcceptedOnes) {
  try {
    sizing_warning_from_json(json{{"kind", "tier-too-warm"}}, "old.json");
    FAIL() << "an unknown kind was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old.json: warnings"), std::string::npos) << what;
    EXPECT_NE(what.find("'tier-too-warm'"), std::string::npos) << what;
    EXPECT_NE(what.find("context-beyond-trained"), std::string::npos) << what;
    EXPECT_NE(what.find("draft-zeroes-tier-hits"), std::string::npos) << what;
  }
  EXPECT_THROW(sizing_warning_from_json(json(3), "old.json"), UsageError);
}

TEST(SizingWarningsJson, AFigureOutOfRangeOrAnUnknownTagIsRefused) {
  auto cap = sizing_warning_to_json(TierBeyondCap{900, 715, 0.7});
  cap["dram_fraction"] = 1.5;  // a share of host DRAM is at most 1
  EXPECT_THROW(sizing_warning_from_json(cap, "x.json"), UsageError);
  auto ranks = sizing_warning_to_json(RanksBeyondNode{16, 8, "h100"});
  ranks["ranks"] = 2.5;  // ranks are whole
  EXPECT_THROW(sizing_warning_from_json(ranks, "x.json"), UsageError);
  auto refused = sizing_warning_to_json(one_of_each().at(2));
  refused["vendor"] = "intel";
  EXPECT_THROW(sizing_warning_from_json(refused, "x.json"), UsageError);
  auto sliding = sizing_warning_to_json(SlidingAsFull{4, 8192, 12288});
  sliding["bytes_per_token_hybrid"] = 0;  // the wording divides by it
  EXPECT_THROW(sizing_warning_from_json(sliding, "x.json"), UsageError);
}

// Llama-3.1-8B (8 KV heads, trained to 131,072 tokens) at TP 16 on 8-GPU H100 nodes, 200,000
// tokens, a 5,000 GiB tier: past its trained length, replicated KV, ranks past one node, a tier
// past the host.
Sizing warned_sizing() {
  auto in = test::inputs("llama-3.1-8b", "h100", 16);
  in.max_model_len = 200'000;
  in.kv_offloading_size_gib = 5000;
  return compute_sizing(in);
}

std::vector<std::string> words(const std::vector<SizingWarning>& ws) {
  std::vector<std::string> out;
  for (const auto& w : ws) out.push_back(sizing_warning_text(w));
  return out;
}

TEST(SizingWarningsJson, ALiveSizingsWarningsAreWordedAsItsDocumentReadBack) {
  const auto s = warned_sizing();
  ASSERT_GE(s.warnings.size(), 3u);
  const json doc = {{"results", json::array({sizing_to_json(s)})}};
  const auto back = size_document_from_json(json::parse(doc.dump()), "size.json");
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_EQ(words(back.results[0].warnings), words(s.warnings));
  for (const auto& w : back.results[0].warnings) EXPECT_FALSE(std::holds_alternative<WordedWarning>(w));
}

TEST(SizingWarningsJson, ADocumentWrittenBeforeWarningsWereFactsStillReadsItsWords) {
  const auto s = warned_sizing();
  auto result = sizing_to_json(s);
  result["warnings"] = words(s.warnings);  // as the writer wrote them before
  const auto back = size_document_from_json(json{{"results", json::array({result})}}, "old.json");
  const auto& read = back.results.at(0).warnings;
  ASSERT_EQ(read.size(), s.warnings.size());
  for (const auto& w : read) EXPECT_TRUE(std::holds_alternative<WordedWarning>(w));
  EXPECT_EQ(words(read), words(s.warnings));  // worded as given
  // and written back as the worded facts they are
  EXPECT_EQ(sizing_to_json(back.results.at(0)).at("warnings").at(0).at("kind"), "worded");
}

}  // namespace
}  // namespace kvb
