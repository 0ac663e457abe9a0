#include "sim/sim_json.hpp"

#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "perf/expected_error_json.hpp"
#include "perf/link_profile_json.hpp"
#include "perf/time_model_terms_json.hpp"
#include "sim/sim_notes_json.hpp"

#include "fleet/fleet_spec.hpp"
#include "kvbench_config.hpp"
#include "server/server_json.hpp"

namespace kvb {

namespace {

// The link, the step model and the expected error as facts; an older document's words under
// their own keys, as it wrote them.
void write_models(const SimulateDocument& d, nlohmann::json& doc) {
  if (const auto* link = std::get_if<LinkProfile>(&d.link)) {
    doc["link"] = link_profile_to_json(*link);
  } else {
    doc["link_model"] = std::get<std::string>(d.link);
  }
  if (const auto* terms = std::get_if<TimeModelTerms>(&d.time_model)) {
    doc["time_model_terms"] = time_model_terms_to_json(*terms);
  } else {
    doc["time_model"] = std::get<std::string>(d.time_model);
  }
  doc["expected_error"] = expected_error_to_json(d.expected_error);
}

}  // namespace
namespace {

nlohmann::json latency_json(const LatencySummary& l) {
  if (l.count == 0) {
    return {{"count", 0},     {"min", nullptr}, {"p50", nullptr}, {"p90", nullptr},
            {"p99", nullptr}, {"max", nullptr}, {"mean", nullptr}};
  }
  return {{"count", l.count}, {"min", l.min}, {"p50", l.p50},  {"p90", l.p90},
          {"p99", l.p99},     {"max", l.max}, {"mean", l.mean}};
}

// Written only for a run with a secondary tier: a run without one writes what it always did.
nlohmann::json secondary_json(const SecondaryTierResult& s) {
  return {{"capacity_blocks", s.capacity_blocks},
          {"read_gbps", s.read_gbps},
          {"write_gbps", s.write_gbps},
          {"latency_us", s.latency_us},
          {"rates", s.rates_stated ? "stated" : "measured"},
          {"hit_tokens", s.hit_tokens},
          {"hit_rate", s.hit_rate},
          {"blocks_written", s.blocks_written},
          {"blocks_read", s.blocks_read},
          {"bytes_written", s.bytes_written},
          {"bytes_read", s.bytes_read},
          {"write_busy_s", s.write_busy_s},
          {"read_busy_s", s.read_busy_s},
          {"peak_blocks", s.peak_blocks},
          {"evictions", s.evictions}};
}

nlohmann::json result_json(const SimResult& r) {
  nlohmann::json occ = nlohmann::json::array();
  for (const auto& [t, v] : r.kv_occupancy) occ.push_back({t, v});
  nlohmann::json costs = nlohmann::json::object();  // engine seconds each tier cost added
  for (int i = 0; i < kTierCostCount; ++i)
    costs[to_string(static_cast<TierCost>(i))] = r.tier_cost_s[static_cast<std::size_t>(i)];
  nlohmann::json j = {{"requests", r.requests},
                      {"finished", r.finished},
                      {"timed_out_requests", r.timed_out},
                      {"makespan_s", r.makespan_s},
                      {"steps", r.steps},
                      {"prompt_tokens", r.prompt_tokens},
                      {"output_tokens", r.output_tokens},
                      {"scheduled_tokens", r.scheduled_tokens},
                      {"prompt_tokens_per_s", r.prompt_tokens_per_s},
                      {"output_tokens_per_s", r.output_tokens_per_s},
                      {"ttft_s", latency_json(r.ttft_s)},
                      {"tpot_s", latency_json(r.tpot_s)},
                      {"e2e_s", latency_json(r.e2e_s)},
                      {"preemptions", r.preemptions},
                      {"recomputed_tokens", r.recomputed_tokens},
                      {"clipped_prompts", r.clipped_prompts},
                      {"rejected_requests", r.rejected_requests},
                      {"gpu_hit_tokens", r.gpu_hit_tokens},
                      {"cpu_hit_tokens", r.cpu_hit_tokens},
                      {"gpu_hit_rate", r.gpu_hit_rate},
                      {"cpu_hit_rate", r.cpu_hit_rate},
                      {"loads", r.loads},
                      {"stores", r.stores},
                      {"h2d_bytes", r.h2d_bytes},
                      {"d2h_bytes", r.d2h_bytes},
                      {"h2d_link_utilization", r.h2d_utilization},
                      {"d2h_link_utilization", r.d2h_utilization},
                      {"gpu_evictions", r.gpu_evictions},
                      {"cpu_evictions", r.cpu_evictions},
                      {"cpu_tier_peak_blocks", r.cpu_tier_peak_blocks},
                      {"kv_occupancy_mean", r.kv_occupancy_mean},
                      {"kv_occupancy_peak", r.kv_occupancy_peak},
                      {"kv_occupancy", occ},
                      {"tier_cost_engine_s", costs}};
  if (r.secondary) j["secondary_tier"] = secondary_json(*r.secondary);
  return j;
}

nlohmann::json replica_json(const ReplicaResult& r) {
  return {{"requests", r.requests},
          {"prompt_tokens", r.prompt_tokens},
          {"output_tokens", r.output_tokens},
          {"ttft_s", latency_json(r.ttft_s)},
          {"gpu_hit_rate", r.gpu_hit_rate},
          {"cpu_hit_rate", r.cpu_hit_rate},
          {"preemptions", r.preemptions},
          {"cpu_tier_peak_blocks", r.cpu_tier_peak_blocks},
          {"kv_occupancy_mean", r.kv_occupancy_mean},
          {"engine_busy_s", r.engine_busy_s}};
}

// One sweep point: its parameters, pools, metrics and the ratios to the same point without a tier.
nlohmann::json point_json(const SimPointRecord& p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : p.params) params[k] = v;
  nlohmann::json jp = {{"params", params},
                       {"offloading", p.offloading},
                       {"kv_offloading_size_gib",
                        p.offloading ? nlohmann::json(p.kv_offloading_gib) : nlohmann::json(nullptr)},
                       {"gpu_blocks", p.gpu_blocks},
                       {"cpu_blocks", p.cpu_blocks},
                       {"max_model_len", p.max_model_len},
                       {"metrics", result_json(p.metrics)}};
  if (!p.metrics.replicas.empty()) {  // a fleet: each replica's share, in replica order
    jp["replicas"] = nlohmann::json::array();
    for (const auto& r : p.metrics.replicas) jp["replicas"].push_back(replica_json(r));
  }
  const auto& v = p.vs_no_offload;
  jp["vs_no_offload"] = {{"output_tokens_per_s_ratio", v.output_tokens_per_s_ratio},
                         {"ttft_p50_ratio", v.ttft_p50_ratio},
                         {"ttft_p99_ratio", v.ttft_p99_ratio},
                         {"baseline_output_tokens_per_s", v.baseline_output_tokens_per_s},
                         {"baseline_ttft_p99_s", v.baseline_ttft_p99_s}};
  return jp;
}

}  // namespace

nlohmann::json simulate_json(const SimulateDocument& d) {
  nlohmann::json doc;
  doc["schema"] = kSimulateSchema;
  doc["tool"] = d.tool;
  doc["kind"] = "simulated";
  doc["scenario"] = {{"name", d.scenario_name},
                     {"origin", d.scenario_origin},
                     {"description", d.scenario_description},
                     {"seed", d.seed}};
  if (d.trace) {
    const auto& t = *d.trace;
    doc["scenario"]["trace"] = {{"path", t.path},
                                {"block_tokens", t.options.block_tokens},
                                {"speed", t.options.speed},
                                {"sample", t.options.sample},
                                {"limit", t.options.limit}};
  }
  write_server_json(d.server, doc);
  doc["cpu_block_bytes"] = d.cpu_block_bytes;
  write_gpu_blocks(d.gpu_blocks, doc);
  write_models(d, doc);
  doc["notes"] = sim_notes_json(d.notes);
  doc["fleet"] = {{"replicas", d.replicas}, {"router", to_string(d.router)}};
  if (d.interrupted) {  // a signal stopped the run: the points are those finished before it
    doc["interrupted"] = true;
    doc["interrupted_during"] = d.interrupted_during;
  }
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : d.sweep) axes.push_back({{"key", a.key}, {"values", a.values}});
  doc["sweep"] = axes;
  doc["points"] = nlohmann::json::array();
  for (const auto& p : d.points) doc["points"].push_back(point_json(p));
  return doc;
}

}  // namespace kvb
