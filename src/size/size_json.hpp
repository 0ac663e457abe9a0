#pragma once
// The kvbench/size/v1 result document: written by `kvbench size --json`, read back by report.
// Writer and reader live together so they cannot drift.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

inline constexpr const char* kSizeSchema = "kvbench/size/v1";

nlohmann::json sizing_to_json(const Sizing& s);

// One document: {"schema": ..., "tool": ..., "results": [ ... ]}.
nlohmann::json sizings_document(const std::vector<Sizing>& all);

// A result's recommendation, every field; the reader range-checks each figure (UsageError naming
// `where`). Public so that a round trip (write, read, write) can be tested byte for byte.
nlohmann::json recommendation_to_json(const TierRecommendation& r);
TierRecommendation recommendation_from_json(const nlohmann::json& k, const std::string& where);

// What a reader of the document needs (the report's sizing table), one per result.
struct SizeRowView {
  std::string model, hardware, kv_dtype, weight_dtype, reload_verdict, vllm_command;
  int tp = 1;
  bool weights_fit = true;
  std::int64_t kv_bytes_per_token = 0, gpu_kv_tokens = 0, gpu_context_tokens = 0, max_model_len = 0;
  double max_concurrency = 0;
  double recommended_gib = -1;                       // -1: no recommendation (the weights do not fit)
  std::optional<TierRecommendation> recommendation;  // absent in files written before it
};

// Throws nlohmann::json::exception for a malformed document.
// Every figure range-checked where it is read; UsageError naming `origin` otherwise.
std::vector<SizeRowView> size_rows_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
