#include "output/sim_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "kvbench_config.hpp"
#include "output/text_table.hpp"

namespace kvb {
namespace {

std::string ratio_text(double head, double base) {
  if (base <= 0) return "-";
  const double r = head / base;
  return r >= 0.1 ? fmt::format("{:.2f}x", r) : fmt::format("{:.3f}x", r);
}

std::string percent(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

std::string latency(const LatencySummary& l, double v) { return l.count > 0 ? format_seconds(v) : "-"; }

nlohmann::json latency_json(const LatencySummary& l) {
  if (l.count == 0) {
    return {{"count", 0}, {"min", nullptr}, {"p50", nullptr}, {"p90", nullptr}, {"p99", nullptr}, {"max", nullptr},
            {"mean", nullptr}};
  }
  return {{"count", l.count}, {"min", l.min}, {"p50", l.p50}, {"p90", l.p90},
          {"p99", l.p99},     {"max", l.max}, {"mean", l.mean}};
}

nlohmann::json result_json(const SimResult& r) {
  nlohmann::json occ = nlohmann::json::array();
  for (const auto& [t, v] : r.kv_occupancy) occ.push_back({t, v});
  return {{"requests", r.requests},
          {"finished", r.finished},
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
          {"kv_occupancy", occ}};
}

}  // namespace

std::string simulate_text(const SweepRun& run) {
  std::string out;
  out += fmt::format("Scenario {} ({}){}\n", run.scenario.name, run.scenario.origin,
                     run.scenario.description.empty() ? "" : ": " + run.scenario.description);
  out += fmt::format("Model {} on {} x{} (weights {}, KV {}), block size {}, {} per CPU block (all ranks)\n", run.model,
                     run.hardware, run.tp, run.weight_dtype, run.kv_dtype, run.block_size,
                     format_bytes_binary(run.cpu_block_bytes));
  out += fmt::format("GPU KV blocks: {}\n", run.gpu_blocks_source);
  out += fmt::format("Link: {}\n", run.link_source);
  out += fmt::format("Time model: {}\n", run.time_model);
  for (const auto& n : run.notes) out += fmt::format("Note: {}\n", n);
  out += "Simulated: every figure below comes from these models, not from a measurement.\n\n";

  std::vector<std::string> header;
  for (const auto& a : run.axes) header.push_back(a.key);
  for (const char* h : {"GPU blk", "CPU blk", "out tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "e2e p99", "preempt",
                        "recomputed", "GPU hit", "CPU hit", "H2D GB", "D2H GB", "link util h2d/d2h", "KV occ",
                        "vs no offload: tok/s", "TTFT p50", "TTFT p99"}) {
    header.emplace_back(h);
  }
  TextTable t(header);
  for (const auto& p : run.points) {
    const auto& r = p.result;
    std::vector<std::string> row;
    for (const auto& kv : p.params) row.push_back(kv.second);
    row.push_back(format_count(p.gpu_blocks));
    row.push_back(p.offloading ? format_count(p.cpu_blocks) : "off");
    row.push_back(fmt::format("{:.0f}", r.output_tokens_per_s));
    row.push_back(latency(r.ttft_s, r.ttft_s.p50));
    row.push_back(latency(r.ttft_s, r.ttft_s.p99));
    row.push_back(latency(r.tpot_s, r.tpot_s.p50));
    row.push_back(latency(r.e2e_s, r.e2e_s.p99));
    row.push_back(format_count(r.preemptions));
    row.push_back(format_count(r.recomputed_tokens));
    row.push_back(percent(r.gpu_hit_rate));
    row.push_back(percent(r.cpu_hit_rate));
    row.push_back(fmt::format("{:.2f}", r.h2d_bytes / kGB));
    row.push_back(fmt::format("{:.2f}", r.d2h_bytes / kGB));
    row.push_back(fmt::format("{:.1f}/{:.1f}%", 100.0 * r.h2d_utilization, 100.0 * r.d2h_utilization));
    row.push_back(percent(r.kv_occupancy_mean));
    row.push_back(p.offloading ? ratio_text(r.output_tokens_per_s, p.baseline.output_tokens_per_s) : "baseline");
    row.push_back(p.offloading ? ratio_text(r.ttft_s.p50, p.baseline.ttft_s.p50) : "baseline");
    row.push_back(p.offloading ? ratio_text(r.ttft_s.p99, p.baseline.ttft_s.p99) : "baseline");
    t.add_row(row);
  }
  out += t.render();
  const auto& first = run.points.front().result;
  out += fmt::format("\n{} requests per point; prompt {} tokens, output {} tokens in all (first point). "
                     "tok/s = output tokens / makespan; hit rates are shares of prompt tokens; util = link busy time / "
                     "makespan, per rank.\n",
                     format_count(first.requests), format_count(first.prompt_tokens), format_count(first.output_tokens));
  return out;
}

nlohmann::json simulate_json(const SweepRun& run) {
  nlohmann::json doc;
  doc["schema"] = kSimulateSchema;
  doc["tool"] = std::string("kvbench ") + KVBENCH_VERSION;
  doc["kind"] = "simulated";
  doc["scenario"] = {{"name", run.scenario.name},
                     {"origin", run.scenario.origin},
                     {"description", run.scenario.description},
                     {"seed", run.scenario.seed}};
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
  doc["notes"] = run.notes;
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : run.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  doc["sweep"] = axes;
  doc["points"] = nlohmann::json::array();
  for (const auto& p : run.points) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : p.params) params[k] = v;
    nlohmann::json jp = {{"params", params},
                         {"offloading", p.offloading},
                         {"kv_offloading_size_gib", p.offloading ? nlohmann::json(p.kv_offloading_gib) : nlohmann::json(nullptr)},
                         {"gpu_blocks", p.gpu_blocks},
                         {"cpu_blocks", p.cpu_blocks},
                         {"max_model_len", p.max_model_len},
                         {"metrics", result_json(p.result)}};
    jp["vs_no_offload"] = {
        {"output_tokens_per_s_ratio", p.baseline.output_tokens_per_s > 0 ? p.result.output_tokens_per_s / p.baseline.output_tokens_per_s : 0.0},
        {"ttft_p50_ratio", p.baseline.ttft_s.p50 > 0 ? p.result.ttft_s.p50 / p.baseline.ttft_s.p50 : 0.0},
        {"ttft_p99_ratio", p.baseline.ttft_s.p99 > 0 ? p.result.ttft_s.p99 / p.baseline.ttft_s.p99 : 0.0},
        {"baseline_output_tokens_per_s", p.baseline.output_tokens_per_s},
        {"baseline_ttft_p99_s", p.baseline.ttft_s.p99}};
    doc["points"].push_back(jp);
  }
  return doc;
}

}  // namespace kvb
