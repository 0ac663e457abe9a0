#include "output/size/size_json.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"
#include "perf/expected_error_json.hpp"
#include "size/tier_advice_json.hpp"

#include "kvbench_config.hpp"

namespace kvb {

namespace {

TierCurvePoint curve_point_from_json(const nlohmann::json& c, const std::string& where) {
  TierCurvePoint p;
  p.kv_offloading_size_gib = json_number_in(c, "kv_offloading_size_gib", 0, kMaxTierGib, where);
  p.output_tokens_per_s = json_number_in(c, "output_tokens_per_s", 0, 1e12, where);
  p.ttft_p50_s = json_number_in(c, "ttft_p50_s", 0, 1e9, where);
  p.ttft_p99_s = json_number_in(c, "ttft_p99_s", 0, 1e9, where);
  p.cpu_hit_rate = json_number_in(c, "cpu_hit_rate", 0, 1, where);
  p.gpu_hit_rate = json_number_in(c, "gpu_hit_rate", 0, 1, where);
  // Files written before these were recorded read as zero.
  p.goodput_rps = json_number_or(c, "goodput_rps", 0, 1e12, 0, where);
  p.h2d_utilization = json_number_or(c, "h2d_utilization", 0, 1, 0, where);
  p.d2h_utilization = json_number_or(c, "d2h_utilization", 0, 1, 0, where);
  p.engine_busy_share = json_number_or(c, "engine_busy_share", 0, 1, 0, where);
  p.gain = json_number_in(c, "gain", -1e6, 1e6, where);
  if (c.contains("costliest_mechanism") && c["costliest_mechanism"].is_string())
    p.costliest_mechanism = c["costliest_mechanism"].get<std::string>();
  p.costliest_share = json_number_or(c, "costliest_share", 0, 1, 0, where);
  p.busiest_ttft_p99_s = json_number_or(c, "busiest_ttft_p99_s", 0, 1e9, 0, where);
  p.replica_hit_rate_min = json_number_or(c, "replica_hit_rate_min", 0, 1, 0, where);
  p.replica_hit_rate_max = json_number_or(c, "replica_hit_rate_max", 0, 1, 0, where);
  p.output_tokens_per_s_min = json_number_or(c, "output_tokens_per_s_min", 0, 1e12, 0, where);
  p.output_tokens_per_s_max = json_number_or(c, "output_tokens_per_s_max", 0, 1e12, 0, where);
  p.ttft_p99_min_s = json_number_or(c, "ttft_p99_min_s", 0, 1e9, 0, where);
  p.ttft_p99_max_s = json_number_or(c, "ttft_p99_max_s", 0, 1e9, 0, where);
  p.gain_spread = json_number_or(c, "gain_spread", 0, 1e6, 0, where);
  return p;
}

PrefixProducerCapacity producer_capacity_from_json(const nlohmann::json& j, const std::string& where) {
  PrefixProducerCapacity c;
  c.server_tokens = json_integer_in(j, "server_tokens", 0, 1LL << 50, where);
  c.lru_capacity_per_server = json_integer_in(j, "lru_capacity_per_server", 0, 1LL << 50, where);
  return c;
}

RouterCapacities router_capacities_from_json(const nlohmann::json& j, const std::string& where) {
  RouterCapacities r;
  r.server_block_size = static_cast<int>(json_integer_in(j, "server_block_size", 1, 1 << 20, where));
  r.producer_block_tokens = static_cast<int>(json_integer_in(j, "producer_block_tokens", 1, 1 << 20, where));
  r.gpu = producer_capacity_from_json(j.at("gpu"), where + ": gpu");
  r.autotune_gpu_entries = json_integer_in(j, "autotune_gpu_entries", 0, 1LL << 50, where);
  if (const auto it = j.find("cpu"); it != j.end() && !it->is_null())
    r.cpu = producer_capacity_from_json(*it, where + ": cpu");
  return r;
}

FleetTier fleet_tier_from_json(const nlohmann::json& j, const std::string& where) {
  FleetTier f;
  f.fleet.replicas = checked_replicas(json_integer_in(j, "replicas", 1, kMaxReplicas, where), where);
  f.fleet.router = parse_router(j.at("router").get<std::string>(), where + ": router");
  f.replicas_per_node = static_cast<int>(json_integer_in(j, "replicas_per_node", 1, kMaxReplicas, where));
  f.nodes = static_cast<int>(json_integer_in(j, "nodes", 1, kMaxReplicas * 1024LL, where));
  f.host_bytes_per_replica = json_number_in(j, "host_bytes_per_replica", 0, 1e18, where);
  f.host_bytes_per_node = json_number_in(j, "host_bytes_per_node", 0, 1e18, where);
  f.host_bytes_total = json_number_in(j, "host_bytes_total", 0, 1e21, where);
  if (const auto it = j.find("compared_router"); it != j.end() && it->is_string())
    f.compared_router = parse_router(it->get<std::string>(), where + ": compared_router");
  f.compared_gib = json_number_in(j, "compared_kv_offloading_size_gib", 0, kMaxTierGib, where);
  f.compared_pays = j.at("compared_pays").get<bool>();
  f.compared_gain = json_number_in(j, "compared_gain", -1e6, 1e6, where);
  if (const auto it = j.find("compared_metric"); it != j.end() && it->is_string())
    f.compared_metric = parse_tier_objective(it->get<std::string>(), where + ": compared_metric");
  // Files before the router's settings carry none.
  if (const auto it = j.find("llmd_prefix_producer"); it != j.end() && it->is_object())
    f.router_capacities = router_capacities_from_json(*it, where + ": llmd_prefix_producer");
  return f;
}

SecondaryLadderPoint ladder_point_from_json(const nlohmann::json& p, const std::string& where) {
  return {.gib = json_number_in(p, "size_gib", 0, kMaxTierGib, where),
          .output_tokens_per_s = json_number_in(p, "output_tokens_per_s", 0, 1e12, where),
          .ttft_p99_s = json_number_in(p, "ttft_p99_s", 0, 1e9, where),
          .hit_rate = json_number_in(p, "hit_rate", 0, 1, where),
          .cpu_hit_rate = json_number_in(p, "cpu_hit_rate", 0, 1, where),
          .gain = json_number_in(p, "gain", -1e6, 1e6, where),
          .gain_spread = json_number_in(p, "gain_spread", 0, 1e6, where),
          .bytes_written = json_number_in(p, "bytes_written", 0, 1e18, where),
          .bytes_read = json_number_in(p, "bytes_read", 0, 1e18, where),
          .peak_gib = json_number_in(p, "peak_gib", 0, kMaxTierGib, where)};
}

// recommendation.secondary_tier_advice (size --workload/--trace --secondary-tier-size).
SecondaryTierAdvice secondary_advice_from_json(const nlohmann::json& k, const std::string& where) {
  SecondaryTierAdvice a;
  const auto name = [&](const char* key) { return k.at(key).get<std::string>(); };
  const auto verdict = secondary_verdict_from_name(name("verdict"));
  const auto basis = secondary_basis_from_name(name("capacity_basis"));
  if (!verdict || !basis)
    throw UsageError(fmt::format("{}: verdict '{}' or capacity_basis '{}' is not one kvbench writes", where,
                                 name("verdict"), name("capacity_basis")));
  a.verdict = *verdict;
  a.basis = *basis;
  a.recommended_gib = json_number_in(k, "recommended_gib", 0, kMaxTierGib, where);
  a.ladder_gib = json_number_in(k, "ladder_gib", 0, kMaxTierGib, where);
  a.replicas = static_cast<int>(json_integer_in(k, "replicas", 1, kMaxReplicas, where));
  a.stated_gib = json_number_in(k, "stated_gib", 0, kMaxTierGib, where);
  a.cpu_gib = json_number_in(k, "cpu_tier_gib", 0, kMaxTierGib, where);
  a.read_gbps = json_number_in(k, "read_gbps", 0, 1e6, where);
  a.write_gbps = json_number_in(k, "write_gbps", 0, 1e6, where);
  a.latency_us = json_number_in(k, "latency_us", 0, 1e9, where);
  a.rates_stated = k.at("rates_stated").get<bool>();
  a.metric = parse_tier_objective(name("decided_by"), where + ": decided_by");
  a.pays_gain = json_number_in(k, "pays_gain", 0, 1, where);
  a.gain = json_number_in(k, "gain", -1e6, 1e6, where);
  a.gain_spread = json_number_in(k, "gain_spread", 0, 1e6, where);
  if (!k.at("model_error").is_null()) a.model_error = json_number_in(k, "model_error", 0, 1e3, where);
  a.hit_rate = json_number_in(k, "hit_rate", 0, 1, where);
  a.cpu_output_tokens_per_s = json_number_in(k, "cpu_output_tokens_per_s", 0, 1e12, where);
  a.cpu_ttft_p99_s = json_number_in(k, "cpu_ttft_p99_s", 0, 1e9, where);
  a.prefix_tokens = json_integer_in(k, "prefix_tokens", 0, kMaxTokens, where);
  a.disk_read_s = json_number_in(k, "disk_read_s", 0, 1e9, where);
  a.reload_s = json_number_in(k, "reload_s", 0, 1e9, where);
  a.recompute_s = json_number_in(k, "recompute_s", 0, 1e9, where);
  for (const auto& p : k.at("ladder")) a.ladder.push_back(ladder_point_from_json(p, where + ": ladder"));
  if (const auto it = k.find("trace_curve"); it != k.end() && !it->is_null()) {  // files before it: none
    a.trace_curve = SecondaryCurveShares{json_number_in(*it, "gpu_hit_rate", 0, 1, where),
                                         json_number_in(*it, "cpu_tier_hit_rate", 0, 1, where),
                                         json_number_in(*it, "secondary_tier_hit_rate", 0, 1, where)};
  }
  (void)k.at("lines");  // required; its words are worded again from the facts above
  return a;
}

void read_simulation_keys(const nlohmann::json& k, TierRecommendation& r, const std::string& where) {
  r.decided_by = r.objective;  // files before decided_by: one metric, the objective's
  if (const auto it = k.find("decided_by"); it != k.end() && it->is_string())
    r.decided_by = parse_tier_objective(it->get<std::string>(), where + ": decided_by");
  // An object: the facts; a string: an older document's words (ExpectedError::recorded).
  if (const auto it = k.find("expected_error");
      it != k.end() && !it->is_null() && !(it->is_string() && it->get<std::string>().empty()))
    r.expected = expected_error_from_json(*it, where + ": expected_error");
  if (k.contains("trace_curve")) {
    for (const auto& c : k.at("trace_curve"))
      r.trace_curve.emplace_back(json_number_in(c, "size_gib", 0, kMaxTierGib, where),
                                 json_number_in(c, "prefix_hit_rate", 0, 1, where));
  }
  r.workload = k.value("workload", std::string());
  r.requests = json_integer_or(k, "requests_per_point", 0, kMaxTokens, 0, where);
  r.seeds = static_cast<int>(json_integer_or(k, "seeds", 1, 1000, 1, where));  // files before it: one draw
  r.gain_spread = json_number_or(k, "gain_spread", 0, 1e6, 0, where);
  if (const auto it = k.find("fleet"); it != k.end()) r.fleet = fleet_tier_from_json(*it, where + ": fleet");
  if (const auto it = k.find("secondary_tier_advice"); it != k.end())
    r.secondary = secondary_advice_from_json(*it, where + ": secondary_tier_advice");
}

}  // namespace

TierRecommendation recommendation_from_json(const nlohmann::json& k, const std::string& where) {
  TierRecommendation r;
  r.basis = parse_recommendation_basis(k.at("basis").get<std::string>(), where + ": basis");
  if (!k.at("objective").is_null())
    r.objective = parse_tier_objective(k.at("objective").get<std::string>(), where + ": objective");
  r.kv_offloading_size_gib = json_number_in(k, "kv_offloading_size_gib", 0, kMaxTierGib, where);
  r.pays = k.at("pays").get<bool>();
  r.costs = k.value("costs", false);  // files written before it was recorded: no loss stated
  r.gain = json_number_or(k, "gain", -1e6, 1e6, 0, where);
  r.verdict = read_tier_verdict(k, where);
  r.steps = read_advice_steps(k, where);
  r.bound = parse_tier_bound(k.at("bound").get<std::string>(), where + ": bound");
  r.floor_gib = json_number_in(k, "floor_gib", 0, kMaxTierGib, where);
  r.cap_gib = json_number_in(k, "cap_gib", 0, kMaxTierGib, where);
  for (const auto& c : k.at("curve")) r.curve.push_back(curve_point_from_json(c, where));
  if (const auto it = k.find("startup_pinning_s"); it != k.end()) {
    r.pin_seconds_low = json_number_in(*it, "low", 0, 1e9, where);
    r.pin_seconds_high = json_number_in(*it, "high", 0, 1e9, where);
    // Files before the figures were recorded wrote their words ("source"): none to word again.
    if (const auto cost = it->find("cost"); cost != it->end() && !cost->is_null())
      r.pinning = pinning_cost_from_json(*cost, where + ": startup_pinning_s");
  }
  if (r.simulated()) read_simulation_keys(k, r, where);
  return r;
}

}  // namespace kvb
