#include "trace/trace_json.hpp"

#include "core/json_file.hpp"
#include "core/units.hpp"
#include "kvbench_config.hpp"

namespace kvb {
namespace {

nlohmann::json lengths(const LengthSummary& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}};
}

}  // namespace

double block_gib(const TraceAnalysis& a, const TraceKvCost& cost) {
  return static_cast<double>(a.options.block_tokens) * cost.kv_bytes_per_token / kGiB;
}

nlohmann::json trace_json(const TraceAnalysis& a, const TraceKvCost& cost) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : a.curve) {
    curve.push_back({{"blocks", p.blocks},
                     {"size_gib", static_cast<double>(p.blocks) * block_gib(a, cost)},
                     {"prefix_hit_rate", p.prefix_hit_rate}});
  }
  return {{"schema", kTraceSchema},
          {"tool", std::string("kvbench ") + KVBENCH_VERSION},
          {"trace", a.path},
          {"format", to_string(a.format)},
          {"reuse_recorded", a.reuse_recorded},
          {"options",
           {{"block_tokens", a.options.block_tokens},
            {"speed", a.options.speed},
            {"sample", a.options.sample},
            {"limit", a.options.limit}}},
          {"model", cost.model},
          {"hardware", cost.hardware},
          {"tensor_parallel_size", cost.tensor_parallel_size},
          {"kv_bytes_per_token", cost.kv_bytes_per_token},
          {"requests", a.requests},
          {"skipped_by_sample", a.skipped_by_sample},
          {"duration_s", a.duration_s},
          {"mean_rate_per_s", a.mean_rate},
          {"median_minute_rate_per_s", a.median_minute_rate},
          {"peak_minute_rate_per_s", a.peak_minute_rate},
          {"prompt_tokens", lengths(a.prompt)},
          {"output_tokens", lengths(a.output)},
          {"distinct_prefix_blocks", a.distinct_blocks},
          {"unbounded_prefix_hit_rate", a.unbounded_prefix_hit_rate},
          {"unbounded_cache_gib", static_cast<double>(a.distinct_blocks) * block_gib(a, cost)},
          {"miss_ratio_curve", curve}};
}

TraceView trace_view_from_json(const nlohmann::json& doc, const std::string& origin) {
  TraceView v;
  v.trace = doc.at("trace").get<std::string>();
  v.format = doc.at("format").get<std::string>();
  v.model = doc.at("model").get<std::string>();
  v.hardware = doc.at("hardware").get<std::string>();
  v.requests = json_integer_in(doc, "requests", 0, kMaxTokens, origin);
  v.duration_s = json_number_in(doc, "duration_s", 0, 1e10, origin);
  v.unbounded_prefix_hit_rate = json_number_in(doc, "unbounded_prefix_hit_rate", 0, 1, origin);
  v.unbounded_cache_gib = json_number_in(doc, "unbounded_cache_gib", 0, 1e12, origin);
  for (const auto& p : doc.at("miss_ratio_curve")) {
    v.curve.emplace_back(json_number_in(p, "size_gib", 0, 1e12, origin),
                         json_number_in(p, "prefix_hit_rate", 0, 1, origin));
  }
  return v;
}

}  // namespace kvb
