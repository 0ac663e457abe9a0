// Issue 53 item 2: the GPU KV memory vLLM logged at start-up, every row of the vendored
// tests/data/ground-truth/vllm-logged-kv-capacity.csv (its README: sources), against
// estimate_budget: within 3% or 0.5 GiB per rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "size/memory_budget.hpp"
#include "test_helpers.hpp"
#include "test_paths.hpp"

using namespace kvb;

namespace {

// One CSV line into fields; a quoted field may hold commas.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::map<std::string, std::string>> logged_rows() {
  std::ifstream in(std::string(KVBENCH_TEST_DATA) + "/ground-truth/vllm-logged-kv-capacity.csv");
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto fields = split_csv(line);
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

// gpt-oss-20b (config.json: 24 layers, 32 experts, 4 per token; 20.91B total, 3.61B active per
// OpenAI's model card, 4.19 with the 0.58B input embedding the catalog counts) and Mistral-Small-3.2-24B (40
// layers, hidden 5120, vocab 131,072; 24.0B with its vision encoder): not in the catalog, their sizes set on
// a catalog shape.
ModelSpec model_for(const std::string& hf_id) {
  if (hf_id == "openai/gpt-oss-20b") {
    auto m = test::model("gpt-oss-120b");
    m.num_hidden_layers = 24;
    m.sliding_layers = 12;
    m.num_experts = 32;
    m.params_total_b = 20.91;
    m.params_active_b = 4.19;
    return m;
  }
  if (hf_id.find("Mistral-Small") != std::string::npos) {
    auto m = test::model("qwen3-32b");
    m.num_hidden_layers = 40;
    m.vocab_size = 131072;
    m.params_total_b = 24.0;
    return m;
  }
  const std::map<std::string, std::string> catalog = {
      {"openai/gpt-oss-120b", "gpt-oss-120b"},
      {"RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "llama-3.1-70b"},  // the same shape
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
      {"Qwen/Qwen3-0.6B", "qwen3-0.6b"},
      {"Qwen/Qwen3-8B", "qwen3-8b"},
      {"Qwen/Qwen3-32B", "qwen3-32b"},
      {"Qwen/Qwen3-32B-AWQ", "qwen3-32b-awq"}};
  return test::model(catalog.at(hf_id));
}

// The N rows log blocks of 16 tokens at TP 2: layers x 2 (K, V) x 4 KV heads a rank x 128 x 2 B x 16.
double logged_gib(const std::map<std::string, std::string>& row, const ModelSpec& m) {
  if (!row.at("kv_gib_per_rank").empty()) return std::stod(row.at("kv_gib_per_rank"));
  const double block_bytes = m.num_hidden_layers * 2.0 * (m.num_kv_heads / 2) * m.head_dim * 2 * 16;
  return std::stod(row.at("blocks")) * block_bytes / kGiB;
}

BudgetInputs server(const std::map<std::string, std::string>& row) {
  BudgetInputs in;
  const bool l40s = row.at("gpu").rfind("L40S", 0) == 0;
  // H100 80GB: 79.18 GiB as the study logged; L40S: 44.39 GiB. vLLM's defaults on each: 8,192
  // batched tokens and 1,024 sequences from 70 GiB (not the A100), else 2,048; the L40S study
  // passed --max-num-seq 1024.
  in.total_gib = l40s ? 44.39 : 79.18;
  in.max_num_batched_tokens = l40s ? 2048 : 8192;
  in.max_num_seqs = 1024;
  in.tp = std::stoi(row.at("tp"));
  in.gpu_memory_utilization = std::stod(row.at("gmu"));
  // E2's own logged terms add up to 0.95 x 79.18 GiB, not 0.9: 64.38 weights + 7.38 peak + 0.13
  // non-torch + 3.33 KV = 75.22 GiB (the study's table says 0.9 for it).
  if (row.at("source_id") == "E2") in.gpu_memory_utilization = 0.95;
  const auto& dtype = row.at("weights_dtype");
  in.weight_dtype = dtype == "awq-int4" ? "awq" : dtype;
  // Releases: N rows 0.19; E8 0.11.0; E1-E7 not stated, the study dated 2026-02-26: 0.15 taken.
  const auto& v = row.at("vllm_version");
  in.vllm_version = v.rfind("0.19", 0) == 0 ? VllmVersion{0, 19, 0}
                    : v == "0.11.0"         ? VllmVersion{0, 11, 0}
                                            : VllmVersion{0, 15, 0};
  return in;
}

}  // namespace

TEST(LoggedKvCapacity, EveryRowWithin3PercentOrHalfAGib) {
  const auto rows = logged_rows();
  ASSERT_EQ(rows.size(), 11u);  // N4-N6, E1-E8
  for (const auto& row : rows) {
    const auto m = model_for(row.at("model"));
    const auto b = estimate_budget(m, server(row));
    const double want = logged_gib(row, m);
    const double got = b.available_bytes / kGiB;
    EXPECT_LE(std::abs(got - want), std::max(0.03 * want, 0.5))
        << row.at("source_id") << " " << row.at("model") << ": kvbench " << got << " GiB, vLLM " << want;
  }
}

// The logged weights per rank, where the row gives them: within 1.5%.
TEST(LoggedKvCapacity, WeightsAsVllmLoadsThem) {
  for (const auto& row : logged_rows()) {
    if (row.at("weights_gib_per_rank").empty()) continue;
    const auto m = model_for(row.at("model"));
    const double want = std::stod(row.at("weights_gib_per_rank"));
    const double got = estimate_budget(m, server(row)).weights_gib;
    EXPECT_LE(std::abs(got / want - 1), 0.015)
        << row.at("source_id") << ": kvbench " << got << " GiB, vLLM " << want;
  }
}
