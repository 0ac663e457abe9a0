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

// A result's recommendation as the report shows it (absent in files written before it existed).
struct RecommendationView {
  std::string basis, objective, decided_by, why, bound, workload,
      expected_error;  // decided_by: the metric of the curve's gains
  double kv_offloading_size_gib = 0;
  bool pays = true;
  double floor_gib = 0, cap_gib = 0;
  std::vector<TierCurvePoint> curve;                   // simulation basis only
  std::vector<std::pair<double, double>> trace_curve;  // size --trace: (GiB, prefix hit rate), counted
};

// What a reader of the document needs (the report's sizing table), one per result.
struct SizeRowView {
  std::string model, hardware, kv_dtype, weight_dtype, reload_verdict, vllm_command;
  int tp = 1;
  bool weights_fit = true;
  std::int64_t kv_bytes_per_token = 0, gpu_kv_tokens = 0, max_model_len = 0;
  double max_concurrency = 0;
  double recommended_gib = -1;  // -1: no recommendation (the weights do not fit)
  std::optional<RecommendationView> recommendation;
};

// Throws nlohmann::json::exception for a malformed document.
// Every figure range-checked where it is read; UsageError naming `origin` otherwise.
std::vector<SizeRowView> size_rows_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
