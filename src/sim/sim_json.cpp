#include "sim/sim_json.hpp"

#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "fleet/fleet_spec.hpp"
#include "kvbench_config.hpp"

namespace kvb {
namespace {

nlohmann::json latency_json(const LatencySummary& l) {
  if (l.count == 0) {
    return {{"count", 0},     {"min", nullptr}, {"p50", nullptr}, {"p90", nullptr},
            {"p99", nullptr}, {"max", nullptr}, {"mean", nullptr}};
  }
  return {{"count", l.count}, {"min", l.min}, {"p50", l.p50},  {"p90", l.p90},
          {"p99", l.p99},     {"max", l.max}, {"mean", l.mean}};
}

nlohmann::json result_json(const SimResult& r) {
  nlohmann::json occ = nlohmann::json::array();
  for (const auto& [t, v] : r.kv_occupancy) occ.push_back({t, v});
  nlohmann::json costs = nlohmann::json::object();  // engine seconds each tier cost added
  for (int i = 0; i < kTierCostCount; ++i)
    costs[to_string(static_cast<TierCost>(i))] = r.tier_cost_s[static_cast<std::size_t>(i)];
  return {{"requests", r.requests},
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
nlohmann::json point_json(const SweepPoint& p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : p.params) params[k] = v;
  nlohmann::json jp = {{"params", params},
                       {"offloading", p.offloading},
                       {"kv_offloading_size_gib",
                        p.offloading ? nlohmann::json(p.kv_offloading_gib) : nlohmann::json(nullptr)},
                       {"gpu_blocks", p.gpu_blocks},
                       {"cpu_blocks", p.cpu_blocks},
                       {"max_model_len", p.max_model_len},
                       {"metrics", result_json(p.result)}};
  if (!p.result.replicas.empty()) {  // a fleet: each replica's share, in replica order
    jp["replicas"] = nlohmann::json::array();
    for (const auto& r : p.result.replicas) jp["replicas"].push_back(replica_json(r));
  }
  jp["vs_no_offload"] = {
      {"output_tokens_per_s_ratio", p.baseline.output_tokens_per_s > 0
                                        ? p.result.output_tokens_per_s / p.baseline.output_tokens_per_s
                                        : 0.0},
      {"ttft_p50_ratio", p.baseline.ttft_s.p50 > 0 ? p.result.ttft_s.p50 / p.baseline.ttft_s.p50 : 0.0},
      {"ttft_p99_ratio", p.baseline.ttft_s.p99 > 0 ? p.result.ttft_s.p99 / p.baseline.ttft_s.p99 : 0.0},
      {"baseline_output_tokens_per_s", p.baseline.output_tokens_per_s},
      {"baseline_ttft_p99_s", p.baseline.ttft_s.p99}};
  return jp;
}

}  // namespace

nlohmann::json simulate_json(const SweepRun& run) {
  nlohmann::json doc;
  doc["schema"] = kSimulateSchema;
  doc["tool"] = std::string("kvbench ") + KVBENCH_VERSION;
  doc["kind"] = "simulated";
  doc["scenario"] = {{"name", run.scenario.name},
                     {"origin", run.scenario.origin},
                     {"description", run.scenario.description},
                     {"seed", run.scenario.seed}};
  if (run.scenario.trace) {
    const auto& t = *run.scenario.trace;
    doc["scenario"]["trace"] = {{"path", printable_path(t.path)},
                                {"block_tokens", t.options.block_tokens},
                                {"speed", t.options.speed},
                                {"sample", t.options.sample},
                                {"limit", t.options.limit}};
  }
  doc["model"] = run.model;
  doc["hardware"] = run.hardware;
  doc["tensor_parallel_size"] = run.tp;
  doc["weight_dtype"] = run.weight_dtype;
  doc["kv_cache_dtype"] = run.kv_dtype;
  doc["block_size"] = run.block_size;
  doc["cpu_block_bytes"] = run.cpu_block_bytes;
  doc["gpu_blocks_source"] = run.gpu_blocks_source;
  doc["link_model"] = run.link_source;
  doc["time_model"] = run.time_model;
  doc["expected_error"] =
      run.expected_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.expected_error);
  doc["notes"] = run.notes;
  doc["fleet"] = {{"replicas", run.scenario.fleet.replicas},
                  {"router", to_string(run.scenario.fleet.router)}};
  if (run.interrupted) {  // a signal stopped the run: the points are those finished before it
    doc["interrupted"] = true;
    doc["interrupted_during"] = run.interrupted_during;
  }
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : run.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  doc["sweep"] = axes;
  doc["points"] = nlohmann::json::array();
  for (const auto& p : run.points) doc["points"].push_back(point_json(p));
  return doc;
}

SimView sim_view_from_json(const nlohmann::json& doc, const std::string& origin) {
  SimView v;
  v.origin = origin;
  v.scenario = doc.at("scenario").at("name").get<std::string>();
  v.description = doc.at("scenario").value("description", std::string());
  v.model = doc.at("model").get<std::string>();
  v.hardware = doc.at("hardware").get<std::string>();
  v.tp = doc.value("tensor_parallel_size", 1);
  v.link_model = doc.value("link_model", std::string());
  v.time_model = doc.value("time_model", std::string());
  if (const auto it = doc.find("expected_error"); it != doc.end() && it->is_string())
    v.expected_error = it->get<std::string>();
  if (const auto it = doc.find("fleet"); it != doc.end()) {
    v.replicas = static_cast<int>(json_integer_in(*it, "replicas", 1, kMaxReplicas, origin));
    if (v.replicas > 1)
      v.router = to_string(parse_router(it->at("router").get<std::string>(), origin + ": router"));
  }
  for (const auto& a : doc.at("sweep")) v.axes.push_back(a.at("key").get<std::string>());
  for (const auto& jp : doc.at("points")) {
    SimPointView p;
    for (const auto& [k, val] : jp.at("params").items()) p.params.emplace_back(k, val.get<std::string>());
    p.offloading = jp.at("offloading").get<bool>();
    p.gpu_blocks = json_integer_or(jp, "gpu_blocks", 0, kMaxTokens, 0, origin);
    p.max_model_len = json_integer_or(jp, "max_model_len", 0, kMaxTokens, 0, origin);
    // Range-checked where read (core/json_file): the report draws what it reads.
    const auto& where = origin;
    // null: the point ran without a CPU tier (the writer's way of saying so).
    p.tier_gib = jp.at("kv_offloading_size_gib").is_null()
                     ? 0
                     : json_number_in(jp, "kv_offloading_size_gib", 0, kMaxTierGib, where);
    const auto& m = jp.at("metrics");
    p.output_tokens_per_s = json_number_in(m, "output_tokens_per_s", 0, 1e12, where);
    p.ttft_p50_s = json_number_in(m.at("ttft_s"), "p50", 0, 1e9, where);
    p.ttft_p99_s = json_number_in(m.at("ttft_s"), "p99", 0, 1e9, where);
    p.gpu_hit_rate = json_number_in(m, "gpu_hit_rate", 0, 1, where);
    p.cpu_hit_rate = json_number_in(m, "cpu_hit_rate", 0, 1, where);
    p.preemptions = json_integer_in(m, "preemptions", 0, kMaxTokens, where);
    p.h2d_bytes = json_number_in(m, "h2d_bytes", 0, 1e21, where);
    p.d2h_bytes = json_number_in(m, "d2h_bytes", 0, 1e21, where);
    const auto& base = jp.at("vs_no_offload");
    p.baseline_output_tokens_per_s = json_number_in(base, "baseline_output_tokens_per_s", 0, 1e12, where);
    p.baseline_ttft_p99_s = json_number_in(base, "baseline_ttft_p99_s", 0, 1e9, where);
    if (const auto it = jp.find("replicas"); it != jp.end()) {
      for (const auto& r : *it) {
        p.replica_gpu_hit_rate.push_back(json_number_in(r, "gpu_hit_rate", 0, 1, where));
        p.replica_cpu_hit_rate.push_back(json_number_in(r, "cpu_hit_rate", 0, 1, where));
      }
    }
    v.points.push_back(std::move(p));
  }
  if (v.points.empty()) throw UsageError(fmt::format("{}: a simulate result with no points", origin));
  return v;
}

}  // namespace kvb
