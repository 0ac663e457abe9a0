// Reads the kvbench/simulate/v1 document back into SimulateDocument (sim/sim_json.hpp): every
// number range-checked where it is read, so a report draws only what a run could have written.
// Fields that documents of earlier kvbench releases lack are read with their defaults.
#include <fmt/format.h>

#include <limits>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "perf/expected_error_json.hpp"
#include "perf/link_profile_json.hpp"
#include "perf/time_model_terms_json.hpp"
#include "server/server_json.hpp"
#include "sim/sim_json.hpp"
#include "sim/sim_notes_json.hpp"

namespace kvb {
namespace {

using nlohmann::json;

// The widest ranges a run can write: counts of tokens, rates, bytes moved, seconds.
constexpr double kMaxRate = 1e12;
constexpr double kMaxBytes = 1e21;
constexpr double kMaxSeconds = 1e12;

// Counts of tokens, requests and blocks.
class Reader : public JsonFields {
 public:
  using JsonFields::count;
  using JsonFields::JsonFields;
  std::int64_t count(const json& j, const char* key) const { return JsonFields::count(j, key, kMaxTokens); }
};

LatencySummary latency(const Reader& r, const json& j) {
  LatencySummary l;
  l.count = r.count(j, "count");
  if (l.count == 0) return l;  // written as nulls
  l.min = r.required(j, "min", kMaxSeconds);
  l.p50 = r.required(j, "p50", kMaxSeconds);
  l.p90 = r.required(j, "p90", kMaxSeconds);
  l.p99 = r.required(j, "p99", kMaxSeconds);
  l.max = r.required(j, "max", kMaxSeconds);
  l.mean = r.required(j, "mean", kMaxSeconds);
  return l;
}

void read_tokens_and_hits(const Reader& r, const json& m, SimResult& s) {
  s.requests = r.count(m, "requests");
  s.finished = r.count(m, "finished");
  s.timed_out = r.count(m, "timed_out_requests");
  s.makespan_s = r.real(m, "makespan_s", kMaxSeconds);
  s.steps = r.count(m, "steps");
  s.prompt_tokens = r.count(m, "prompt_tokens");
  s.output_tokens = r.count(m, "output_tokens");
  s.scheduled_tokens = r.count(m, "scheduled_tokens");
  s.prompt_tokens_per_s = r.real(m, "prompt_tokens_per_s", kMaxRate);
  s.output_tokens_per_s = r.required(m, "output_tokens_per_s", kMaxRate);
  s.preemptions = json_integer_in(m, "preemptions", 0, kMaxTokens, r.where());
  s.recomputed_tokens = r.count(m, "recomputed_tokens");
  s.clipped_prompts = r.count(m, "clipped_prompts");
  s.rejected_requests = r.count(m, "rejected_requests");
  s.gpu_hit_tokens = r.count(m, "gpu_hit_tokens");
  s.cpu_hit_tokens = r.count(m, "cpu_hit_tokens");
  s.gpu_hit_rate = r.required(m, "gpu_hit_rate", 1);
  s.cpu_hit_rate = r.required(m, "cpu_hit_rate", 1);
}

void read_tier_and_occupancy(const Reader& r, const json& m, SimResult& s) {
  s.loads = r.count(m, "loads");
  s.stores = r.count(m, "stores");
  s.h2d_bytes = r.required(m, "h2d_bytes", kMaxBytes);
  s.d2h_bytes = r.required(m, "d2h_bytes", kMaxBytes);
  s.h2d_utilization = r.real(m, "h2d_link_utilization", kMaxRate);
  s.d2h_utilization = r.real(m, "d2h_link_utilization", kMaxRate);
  s.gpu_evictions = r.count(m, "gpu_evictions");
  s.cpu_evictions = r.count(m, "cpu_evictions");
  s.cpu_tier_peak_blocks = r.count(m, "cpu_tier_peak_blocks");
  s.kv_occupancy_mean = r.real(m, "kv_occupancy_mean", kMaxRate);
  s.kv_occupancy_peak = r.real(m, "kv_occupancy_peak", kMaxRate);
  if (const auto it = m.find("kv_occupancy"); it != m.end()) {
    for (const auto& bin : *it) s.kv_occupancy.emplace_back(bin.at(0).get<double>(), bin.at(1).get<double>());
  }
  if (const auto it = m.find("tier_cost_engine_s"); it != m.end()) {
    if (!it->is_object())
      throw UsageError(
          fmt::format("{}: field 'tier_cost_engine_s' is a {}; expected an object of seconds per "
                      "mechanism",
                      r.where(), it->type_name()));
    for (int i = 0; i < kTierCostCount; ++i) {
      s.tier_cost_s[static_cast<std::size_t>(i)] =
          r.real(*it, to_string(static_cast<TierCost>(i)).c_str(), kMaxSeconds);
    }
  }
}

SecondaryTierResult secondary(const Reader& r, const json& j) {
  SecondaryTierResult s;
  s.capacity_blocks = r.count(j, "capacity_blocks");
  s.read_gbps = r.required(j, "read_gbps", kMaxRate);
  s.write_gbps = r.required(j, "write_gbps", kMaxRate);
  s.latency_us = r.required(j, "latency_us", kMaxSeconds);
  const auto rates = r.text(j, "rates");
  if (rates != "stated" && rates != "measured")
    throw UsageError(fmt::format("{}: field 'secondary_tier.rates' is '{}'; expected stated or measured",
                                 r.where(), rates));
  s.rates_stated = rates == "stated";
  s.hit_tokens = r.count(j, "hit_tokens");
  s.hit_rate = r.required(j, "hit_rate", 1);
  s.blocks_written = r.count(j, "blocks_written");
  s.blocks_read = r.count(j, "blocks_read");
  s.bytes_written = r.required(j, "bytes_written", kMaxBytes);
  s.bytes_read = r.required(j, "bytes_read", kMaxBytes);
  s.write_busy_s = r.required(j, "write_busy_s", kMaxSeconds);
  s.read_busy_s = r.required(j, "read_busy_s", kMaxSeconds);
  s.peak_blocks = r.count(j, "peak_blocks");
  s.evictions = r.count(j, "evictions");
  return s;
}

ReplicaResult replica(const Reader& r, const json& j) {
  ReplicaResult x;
  x.requests = r.count(j, "requests");
  x.prompt_tokens = r.count(j, "prompt_tokens");
  x.output_tokens = r.count(j, "output_tokens");
  if (const auto it = j.find("ttft_s"); it != j.end()) x.ttft_s = latency(r, *it);
  x.gpu_hit_rate = r.required(j, "gpu_hit_rate", 1);
  x.cpu_hit_rate = r.required(j, "cpu_hit_rate", 1);
  x.preemptions = r.count(j, "preemptions");
  x.cpu_tier_peak_blocks = r.count(j, "cpu_tier_peak_blocks");
  x.kv_occupancy_mean = r.real(j, "kv_occupancy_mean", kMaxRate);
  x.engine_busy_s = r.real(j, "engine_busy_s", kMaxSeconds);
  return x;
}

SimPointRecord point(const Reader& r, const json& jp) {
  SimPointRecord p;
  for (const auto& [k, v] : jp.at("params").items()) p.params.emplace_back(k, v.get<std::string>());
  p.offloading = jp.at("offloading").get<bool>();
  // null: the point ran without a CPU tier (the writer's way of saying so).
  if (!jp.at("kv_offloading_size_gib").is_null())
    p.kv_offloading_gib = r.required(jp, "kv_offloading_size_gib", kMaxTierGib);
  p.gpu_blocks = r.count(jp, "gpu_blocks");
  p.cpu_blocks = r.count(jp, "cpu_blocks");
  p.max_model_len = r.count(jp, "max_model_len");
  const auto& m = jp.at("metrics");
  read_tokens_and_hits(r, m, p.metrics);
  read_tier_and_occupancy(r, m, p.metrics);
  if (const auto it = m.find("secondary_tier"); it != m.end()) p.metrics.secondary = secondary(r, *it);
  p.metrics.ttft_s = latency(r, m.at("ttft_s"));
  if (const auto it = m.find("tpot_s"); it != m.end()) p.metrics.tpot_s = latency(r, *it);
  if (const auto it = m.find("e2e_s"); it != m.end()) p.metrics.e2e_s = latency(r, *it);
  if (const auto it = jp.find("replicas"); it != jp.end()) {
    if (!it->is_array())
      throw UsageError(fmt::format("{}: field 'replicas' is a {}; expected a list, one entry per replica",
                                   r.where(), it->type_name()));
    for (const auto& x : *it) p.metrics.replicas.push_back(replica(r, x));
  }
  const auto& v = jp.at("vs_no_offload");
  p.vs_no_offload = {.output_tokens_per_s_ratio = r.real(v, "output_tokens_per_s_ratio", kMaxRate),
                     .ttft_p50_ratio = r.real(v, "ttft_p50_ratio", kMaxRate),
                     .ttft_p99_ratio = r.real(v, "ttft_p99_ratio", kMaxRate),
                     .baseline_output_tokens_per_s = r.required(v, "baseline_output_tokens_per_s", kMaxRate),
                     .baseline_ttft_p99_s = r.required(v, "baseline_ttft_p99_s", kMaxSeconds)};
  return p;
}

std::uint64_t seed_of(const json& scenario, const std::string& origin) {
  const auto it = scenario.find("seed");
  if (it == scenario.end()) return 1;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  throw UsageError(fmt::format("{}: field 'seed' must be a whole number from 0 to {}", origin,
                               std::numeric_limits<std::uint64_t>::max()));
}

void read_scenario(const Reader& r, const json& s, SimulateDocument& d) {
  d.scenario_name = s.at("name").get<std::string>();
  d.scenario_origin = r.text(s, "origin");
  d.scenario_description = r.text(s, "description");
  d.seed = seed_of(s, r.where());
  if (const auto it = s.find("trace"); it != s.end()) {
    TraceInput t;
    t.path = it->at("path").get<std::string>();
    t.options.block_tokens = json_integer_in(*it, "block_tokens", 1, kMaxTokens, r.where());
    t.options.speed = r.required(*it, "speed", kMaxRate);
    t.options.sample = r.required(*it, "sample", 1);
    t.options.limit = r.count(*it, "limit");
    d.trace = t;
  }
}

// The link, the step model and the expected error: facts, or an older document's words.
void read_models(const Reader& r, const json& doc, SimulateDocument& d) {
  if (const auto it = doc.find("link"); it != doc.end() && it->is_object()) {
    d.link = link_profile_from_json(*it, r.where());
  } else {
    d.link = r.text(doc, "link_model");
  }
  if (const auto it = doc.find("time_model_terms"); it != doc.end() && it->is_object()) {
    d.time_model = time_model_terms_from_json(*it, r.where() + ": time_model_terms");
  } else {
    d.time_model = r.text(doc, "time_model");
  }
  if (const auto it = doc.find("expected_error"); it != doc.end() && !it->is_null())
    d.expected_error = expected_error_from_json(*it, r.where() + ": expected_error");
}

void read_server(const Reader& r, const json& doc, SimulateDocument& d) {
  d.server = read_server_json(doc, r.where());
  d.cpu_block_bytes = r.real(doc, "cpu_block_bytes", kMaxBytes);
  d.gpu_blocks = read_gpu_blocks(doc, r.where());
  read_models(r, doc, d);
  d.notes = read_sim_notes(doc, r.where());
  if (const auto it = doc.find("fleet"); it != doc.end()) {
    d.replicas = static_cast<int>(json_integer_in(*it, "replicas", 1, kMaxReplicas, r.where()));
    d.router = parse_router(it->at("router").get<std::string>(), r.where() + ": router");
  }
}

}  // namespace

SimulateDocument simulate_document_from_json(const nlohmann::json& doc, const std::string& origin) {
  const Reader r(origin);
  SimulateDocument d;
  d.tool = r.text(doc, "tool");
  read_scenario(r, doc.at("scenario"), d);
  read_server(r, doc, d);
  d.interrupted = doc.value("interrupted", false);
  d.interrupted_during = r.text(doc, "interrupted_during");
  for (const auto& a : doc.at("sweep")) {
    d.sweep.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<std::string>>()});
  }
  for (const auto& jp : doc.at("points")) {
    d.points.push_back(point(r, jp));
    // A fleet's point holds one entry per replica (one engine: none); any other count is not a run's.
    const auto entries = d.points.back().metrics.replicas.size();
    if (entries != (d.replicas > 1 ? static_cast<std::size_t>(d.replicas) : 0)) {
      throw UsageError(
          fmt::format("{}: point {}: field 'replicas' holds {} entries; expected {} (fleet.replicas {})",
                      origin, d.points.size(), entries, d.replicas > 1 ? d.replicas : 0, d.replicas));
    }
  }
  return d;
}

}  // namespace kvb
