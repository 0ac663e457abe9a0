#pragma once
// The kvbench/size/v1 result document: written by `kvbench size --json`, read back by report.
// Writer and reader live together so they cannot drift.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

inline constexpr const char* kSizeSchema = "kvbench/size/v1";

nlohmann::json sizing_to_json(const Sizing& s);

// One document: {"schema": ..., "tool": ..., "results": [ ... ]}.
nlohmann::json sizings_document(const std::vector<Sizing>& all);

// What a reader of the document needs (the report's sizing table), one per result.
struct SizeRowView {
  std::string model, hardware, kv_dtype, weight_dtype, reload_verdict, vllm_command;
  int tp = 1;
  bool weights_fit = true;
  std::int64_t kv_bytes_per_token = 0, gpu_kv_tokens = 0, max_model_len = 0;
  double max_concurrency = 0;
  double recommended_gib = -1;  // -1: no recommendation (the weights do not fit)
};

// Throws nlohmann::json::exception for a malformed document.
std::vector<SizeRowView> size_rows_from_json(const nlohmann::json& doc);

}  // namespace kvb
