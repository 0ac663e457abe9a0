#include "trace/trace_json.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "kvbench_config.hpp"
#include "server/server_json.hpp"

namespace kvb {
namespace {

nlohmann::json lengths(const LengthSummary& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}};
}

}  // namespace

double block_gib(const TraceAnalysis& a, const TraceKvCost& cost) {
  return static_cast<double>(a.options.block_tokens) * cost.kv_bytes_per_token / kGiB;
}

namespace {

nlohmann::json curve_json(const std::vector<MissRatioPoint>& curve, double gib_per_block) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : curve) {
    out.push_back({{"blocks", p.blocks},
                   {"cache_gib", static_cast<double>(p.blocks) * gib_per_block},
                   {"prefix_hit_rate", p.prefix_hit_rate}});
  }
  return out;
}

// --replicas: the router, each replica's share and curve, and the fleet's curve (per replica's cache).
nlohmann::json fleet_json(const TraceAnalysis& a, const TraceKvCost& cost) {
  const double gib = block_gib(a, cost);
  nlohmann::json replicas = nlohmann::json::array();
  for (const auto& r : a.replicas) {
    replicas.push_back({{"requests", r.requests},
                        {"prompt_tokens", r.prompt_tokens},
                        {"unbounded_prefix_hit_rate", r.unbounded_prefix_hit_rate},
                        {"miss_ratio_curve", curve_json(r.curve, gib)}});
  }
  return {{"replicas", a.fleet.replicas},
          {"router", to_string(a.fleet.router)},
          {"miss_ratio_curve_per_replica_cache", curve_json(a.fleet_curve, gib)},
          {"per_replica", replicas}};
}

// --secondary-tier-size: the tiers' sizes and each tier's share at each CPU-tier size.
nlohmann::json two_level_json(const TwoLevelCurve& c, double gib_per_block) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : c.points) {
    points.push_back({{"cpu_tier_blocks", p.cpu_blocks},
                      {"cpu_tier_gib", static_cast<double>(p.cpu_blocks) * gib_per_block},
                      {"gpu_hit_rate", p.gpu},
                      {"cpu_tier_hit_rate", p.cpu},
                      {"secondary_tier_hit_rate", p.secondary}});
  }
  const auto& s = c.levels.secondary_blocks;
  return {
      {"gpu_pool_blocks", c.levels.gpu_blocks},
      {"gpu_pool_gib", static_cast<double>(c.levels.gpu_blocks) * gib_per_block},
      {"secondary_tier_unbounded", !s.has_value()},
      {"secondary_tier_blocks", s ? nlohmann::json(*s) : nlohmann::json()},
      {"secondary_tier_gib", s ? nlohmann::json(static_cast<double>(*s) * gib_per_block) : nlohmann::json()},
      {"points", points}};
}

}  // namespace

nlohmann::json trace_json(const TraceAnalysis& a, const TraceKvCost& cost) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : a.curve) {
    curve.push_back({{"blocks", p.blocks},
                     {"size_gib", static_cast<double>(p.blocks) * block_gib(a, cost)},
                     {"prefix_hit_rate", p.prefix_hit_rate}});
  }
  nlohmann::json doc = {{"schema", kTraceSchema},
                        {"tool", std::string("kvbench ") + KVBENCH_VERSION},
                        {"trace", printable_path(a.path)},
                        {"format", to_string(a.format)},
                        {"reuse_recorded", a.reuse_recorded},
                        {"options",
                         {{"block_tokens", a.options.block_tokens},
                          {"speed", a.options.speed},
                          {"sample", a.options.sample},
                          {"limit", a.options.limit}}},
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
  write_server_json(cost.server, doc);
  if (a.failed_requests > 0) doc["failed_requests"] = a.failed_requests;  // left out: no lengths
  if (a.format == TraceFormat::kVllmLog) {
    doc["vllm_log"] = {{"requests", a.vllm_log.requests},
                       {"output_tokens_upper_bound", a.vllm_log.output_upper_bound},
                       {"prompts_without_token_ids", a.vllm_log.embeds_left_out},
                       {"arrivals_to_the_second", a.vllm_log.whole_seconds}};
  }
  if (a.interrupted) doc["interrupted"] = true;  // the figures cover the requests read before the signal
  if (!a.replicas.empty()) doc["fleet"] = fleet_json(a, cost);
  if (a.two_level) doc["two_level_curve"] = two_level_json(*a.two_level, block_gib(a, cost));
  return doc;
}

namespace {

TraceFormat format_from(const std::string& text, const std::string& origin) {
  for (const auto f :
       {TraceFormat::kMooncake, TraceFormat::kKvbench, TraceFormat::kCsv, TraceFormat::kAiperf,
        TraceFormat::kGuidellm, TraceFormat::kVllmLog, TraceFormat::kInferencePerf, TraceFormat::kVllmBench})
    if (text == to_string(f)) return f;
  throw UsageError(
      fmt::format("{}: trace format '{}'; expected Mooncake JSONL, kvbench JSONL, CSV, AIPerf "
                  "profile_export.jsonl, GuideLLM benchmarks.json, vLLM request log, inference-perf "
                  "per_request_lifecycle_metrics.json or vllm bench serve result",
                  origin, text));
}

LengthSummary lengths_from(const nlohmann::json& j, const std::string& origin) {
  const auto length = [&](const char* key) { return json_number_in(j, key, 0, kMaxTokens, origin); };
  return {length("mean"), length("p50"), length("p90"), length("p99"), length("max")};
}

TraceOptions options_from(const nlohmann::json& j, const std::string& origin) {
  TraceOptions o;
  o.block_tokens = json_integer_in(j, "block_tokens", 1, kMaxTokens, origin);
  o.speed = json_number_in(j, "speed", 1e-9, 1e9, origin);
  o.sample = json_number_in(j, "sample", 0, 1, origin);
  o.limit = json_integer_in(j, "limit", 0, kMaxTokens, origin);
  return o;
}

std::vector<MissRatioPoint> curve_from(const nlohmann::json& j, const std::string& origin) {
  std::vector<MissRatioPoint> curve;
  for (const auto& p : j) {
    curve.push_back({json_integer_in(p, "blocks", 0, kMaxTokens, origin),
                     json_number_in(p, "prefix_hit_rate", 0, 1, origin)});
  }
  return curve;
}

// The `fleet` block fleet_json writes: the router, each replica's share and curve, the fleet's curve.
void fleet_from(const nlohmann::json& j, TraceAnalysis& a, const std::string& origin) {
  a.fleet.replicas = checked_replicas(json_integer_in(j, "replicas", 2, kMaxReplicas, origin), origin);
  a.fleet.router = parse_router(j.at("router").get<std::string>(), origin);
  a.fleet_curve = curve_from(j.at("miss_ratio_curve_per_replica_cache"), origin);
  for (const auto& r : j.at("per_replica")) {
    a.replicas.push_back({json_integer_in(r, "requests", 0, kMaxTokens, origin),
                          json_number_in(r, "prompt_tokens", 0, 1e18, origin),
                          json_number_in(r, "unbounded_prefix_hit_rate", 0, 1, origin),
                          curve_from(r.at("miss_ratio_curve"), origin)});
  }
  if (static_cast<int>(a.replicas.size()) != a.fleet.replicas) {
    throw UsageError(fmt::format("{}: fleet: {} replicas with {} per_replica entries; expected one each",
                                 origin, a.fleet.replicas, a.replicas.size()));
  }
}

// The `two_level_curve` block two_level_json writes: each share a rate, the three no more than all.
TwoLevelCurve two_level_from(const nlohmann::json& j, const std::string& origin) {
  TwoLevelCurve c;
  c.levels.gpu_blocks = json_integer_in(j, "gpu_pool_blocks", 0, kMaxTokens, origin);
  if (!(j.contains("secondary_tier_unbounded") && j.at("secondary_tier_unbounded") == true))
    c.levels.secondary_blocks = json_integer_in(j, "secondary_tier_blocks", 1, kMaxTokens, origin);
  for (const auto& p : j.at("points")) {
    TierShares t{json_integer_in(p, "cpu_tier_blocks", c.levels.gpu_blocks + 1, kMaxTokens, origin),
                 json_number_in(p, "gpu_hit_rate", 0, 1, origin),
                 json_number_in(p, "cpu_tier_hit_rate", 0, 1, origin),
                 json_number_in(p, "secondary_tier_hit_rate", 0, 1, origin)};
    if (t.total() > 1 + 1e-9) {
      throw UsageError(fmt::format(
          "{}: two_level_curve: the shares at {} CPU-tier blocks add up to {:g}; expected at most 1 (each a "
          "share of the same prompt tokens)",
          origin, t.cpu_blocks, t.total()));
    }
    c.points.push_back(t);
  }
  return c;
}

}  // namespace

TraceDocument trace_document_from_json(const nlohmann::json& doc, const std::string& origin) {
  TraceDocument d;
  auto& a = d.analysis;
  a.path = doc.at("trace").get<std::string>();
  a.format = format_from(doc.at("format").get<std::string>(), origin);
  a.reuse_recorded = doc.value("reuse_recorded", true);
  a.interrupted = doc.contains("interrupted") && doc.at("interrupted") == true;
  a.options = options_from(doc.at("options"), origin);
  d.cost.server = read_server_json(doc, origin);
  d.cost.kv_bytes_per_token = json_number_in(doc, "kv_bytes_per_token", 0, 1e12, origin);
  a.requests = json_integer_in(doc, "requests", 0, kMaxTokens, origin);
  a.skipped_by_sample = json_integer_or(doc, "skipped_by_sample", 0, kMaxTokens, 0, origin);
  a.failed_requests = json_integer_or(doc, "failed_requests", 0, kMaxTokens, 0, origin);
  if (doc.contains("vllm_log") && doc.at("vllm_log").is_object()) {
    const auto& v = doc.at("vllm_log");
    a.vllm_log.requests = json_integer_in(v, "requests", 0, kMaxTokens, origin);
    a.vllm_log.output_upper_bound = json_integer_in(v, "output_tokens_upper_bound", 0, kMaxTokens, origin);
    a.vllm_log.embeds_left_out = json_integer_in(v, "prompts_without_token_ids", 0, kMaxTokens, origin);
    a.vllm_log.whole_seconds = v.contains("arrivals_to_the_second") && v.at("arrivals_to_the_second") == true;
  }
  a.duration_s = json_number_in(doc, "duration_s", 0, 1e10, origin);
  a.mean_rate = json_number_or(doc, "mean_rate_per_s", 0, 1e12, 0, origin);
  a.median_minute_rate = json_number_or(doc, "median_minute_rate_per_s", 0, 1e12, 0, origin);
  a.peak_minute_rate = json_number_or(doc, "peak_minute_rate_per_s", 0, 1e12, 0, origin);
  a.prompt = lengths_from(doc.at("prompt_tokens"), origin);
  a.output = lengths_from(doc.at("output_tokens"), origin);
  a.distinct_blocks = json_integer_in(doc, "distinct_prefix_blocks", 0, kMaxTokens, origin);
  a.unbounded_prefix_hit_rate = json_number_in(doc, "unbounded_prefix_hit_rate", 0, 1, origin);
  a.curve = curve_from(doc.at("miss_ratio_curve"), origin);
  if (doc.contains("fleet")) fleet_from(doc.at("fleet"), a, origin);
  if (doc.contains("two_level_curve")) a.two_level = two_level_from(doc.at("two_level_curve"), origin);
  return d;
}

}  // namespace kvb
