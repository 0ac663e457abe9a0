// The size document records the KV layout and the sizing rule's figures as facts (issue 54 §2):
// a read-back sizing computes the layout's figures and words the rule's steps as the live one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "output/size/offload_rule_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "size/kv_layout_json.hpp"
#include "test_helpers.hpp"

using namespace kvb;
using nlohmann::json;

namespace {

KvLayout live_layout(const std::string& name, int tp = 1) {
  KvSettings settings;
  settings.tp = tp;
  return compute_kv_layout(test::model(name), resolve_hardware("h100"), settings);
}

Sizing read_back(const Sizing& s) {
  return size_document_from_json(json::parse(sizings_document({s}).dump()), "rt.json").results.at(0);
}

// Uniform GQA, a sliding-window hybrid, MLA (replicated on every rank), and a Mamba hybrid whose
// state raises the block size: each layout read back is the same layout.
TEST(KvLayoutJson, EveryKindOfLayoutReadsBackWhole) {
  for (const auto& [name, tp] : std::vector<std::pair<std::string, int>>{
           {"llama-3.1-8b", 1}, {"gpt-oss-120b", 1}, {"deepseek-v3", 8}, {"nemotron-3-nano-30b-a3b", 1}}) {
    const auto live = live_layout(name, tp);
    const auto read = kv_layout_from_json(json::parse(kv_layout_to_json(live).dump()), name);
    EXPECT_EQ(kv_layout_to_json(read), kv_layout_to_json(live)) << name;
    EXPECT_EQ(read.kv_bytes_per_token(), live.kv_bytes_per_token()) << name;
    EXPECT_EQ(read.kv_bytes_per_token_all_layers(), live.kv_bytes_per_token_all_layers()) << name;
    EXPECT_EQ(read.block_bytes_all_layers(), live.block_bytes_all_layers()) << name;
    EXPECT_EQ(blocks_per_request(read, 131072, 8192), blocks_per_request(live, 131072, 8192)) << name;
  }
  // The four reach every kind of layer type the document names.
  EXPECT_EQ(live_layout("gpt-oss-120b").types.size(), 2u);
  EXPECT_EQ(live_layout("deepseek-v3", 8).replication.cause, ReplicationCause::kMlaLatent);
  EXPECT_EQ(live_layout("nemotron-3-nano-30b-a3b").block_size_reason.source, BlockSizeSource::kMambaState);
}

TEST(KvLayoutJson, AnUnknownKindOrAnImpossibleFigureIsRefusedNamingTheFile) {
  auto j = kv_layout_to_json(live_layout("gpt-oss-120b"));
  auto bad_kind = j;
  bad_kind["types"][0]["kind"] = "linear";
  try {
    (void)kv_layout_from_json(bad_kind, "old.json");
    FAIL() << "an unknown layer kind was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("old.json: kv_layout"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("full, sliding, mamba"), std::string::npos) << e.what();
  }
  auto negative = j;
  negative["types"][0]["layers"] = -3;
  EXPECT_THROW((void)kv_layout_from_json(negative, "old.json"), UsageError);
  auto zero_block = j;
  zero_block["block_size"] = 0;
  EXPECT_THROW((void)kv_layout_from_json(zero_block, "old.json"), UsageError);
}

// 4 full-attention layers of 32,768 B and the rest sliding: the figures an older document kept.
TEST(KvLayoutJson, AnOlderDocumentsFiguresAreReproducedByTheLayoutItReadsAs) {
  const auto l = layout_from_figures(
      {.bytes_per_token = 131072, .bytes_per_token_all_layers = 196608, .page_bytes = 65536, .groups = 2});
  EXPECT_EQ(l.kv_bytes_per_token(), 131072);
  EXPECT_EQ(l.kv_bytes_per_token_all_layers(), 196608);
  EXPECT_EQ(l.page_bytes, 65536);
  EXPECT_EQ(l.num_groups, 2);
}

TEST(KvLayoutJson, AnOlderDocumentWithoutTheLayoutPrintsTheFiguresItWrote) {
  // gpt-oss-120b: hybrid, so the table's GPU KV tokens are the full-attention capacity, not the log's.
  auto in = test::inputs("gpt-oss-120b");
  in.max_model_len = 131072;
  const auto live = compute_sizing(in);
  ASSERT_FALSE(live.layout.uniform);
  auto result = sizing_to_json(live);
  result.erase("kv_layout");  // as the writer wrote it before
  const auto read =
      size_document_from_json(json{{"results", json::array({result})}}, "old.json").results.at(0);
  EXPECT_EQ(read.layout.kv_bytes_per_token(), live.layout.kv_bytes_per_token());
  EXPECT_EQ(read.layout.kv_bytes_per_token_all_layers(), live.layout.kv_bytes_per_token_all_layers());
  EXPECT_EQ(read.gpu_context_tokens(), live.gpu_context_tokens());
  EXPECT_EQ(read.layout.page_bytes, live.layout.page_bytes);
}

// The rule's three shapes: raised to the floor, capped by host DRAM, and sized for a shorter
// context than the one asked for; each read back words its steps as the live sizing does.
TEST(OffloadRuleJson, TheRulesStepsAreWordedFromItsFiguresAsALiveSizings) {
  auto floor = test::inputs("llama-3.1-8b");
  floor.max_model_len = 32768;
  floor.concurrency = 1;
  auto capped = test::inputs("llama-3.1-8b");
  capped.max_model_len = 131072;
  capped.concurrency = 1000;
  capped.host_memory_gb = 512;
  auto shorter = test::inputs("qwen3-32b");
  shorter.max_model_len = 131072;
  for (const auto& in : {floor, capped, shorter}) {
    const auto live = compute_sizing(in);
    ASSERT_TRUE(live.offload && live.offload->rule) << in.model.name;
    const auto read = read_back(live);
    ASSERT_TRUE(read.offload && read.offload->rule) << in.model.name;
    EXPECT_EQ(rule_reasoning_lines(*read.offload), rule_reasoning_lines(*live.offload)) << in.model.name;
  }
  EXPECT_TRUE(compute_sizing(floor).offload->rule->below_floor);
  EXPECT_TRUE(compute_sizing(capped).offload->capped);
  EXPECT_TRUE(compute_sizing(shorter).offload->rule->requested_max_model_len.has_value());
}

TEST(OffloadRuleJson, AnOlderDocumentsWordsReadAsNoRuleAndWriteBackNull) {
  const auto live = compute_sizing(test::inputs("llama-3.1-8b"));
  auto result = sizing_to_json(live);
  auto& offload = result.at("offload");
  offload.erase("rule");  // as the writer wrote it before: the steps' words
  offload["reasoning"] = rule_reasoning_lines(*live.offload);
  offload["sessions_reason"] = "default: 2 x the 3.40 full-length sessions the GPU pool holds";
  const auto read =
      size_document_from_json(json{{"results", json::array({result})}}, "old.json").results.at(0);
  ASSERT_TRUE(read.offload.has_value());
  EXPECT_FALSE(read.offload->rule.has_value());
  EXPECT_TRUE(rule_reasoning_lines(*read.offload).empty());  // no figures: no steps, none invented
  EXPECT_EQ(read.offload->recommended_gib(), live.offload->recommended_gib());
  EXPECT_TRUE(sizing_to_json(read).at("offload").at("rule").is_null());
}

}  // namespace
