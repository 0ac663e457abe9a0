#include "output/simulate/sim_output.hpp"

#include <fmt/format.h>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"
#include "output/common/expected_error_text.hpp"
#include "output/common/link_origin_text.hpp"
#include "output/common/text_table.hpp"
#include "output/common/time_model_text.hpp"
#include "output/simulate/secondary_tier_text.hpp"
#include "output/simulate/sim_notes_text.hpp"

namespace kvb {
namespace {

std::string ratio_text(double head, double base) {
  if (base <= 0) return "-";
  const double r = head / base;
  return r >= 0.1 ? fmt::format("{:.2f}x", r) : fmt::format("{:.3f}x", r);
}

std::string percent(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

std::string latency(const LatencySummary& l, double v) { return l.count > 0 ? format_seconds(v) : "-"; }

// What each router reads to choose (sim/router.hpp has the sources).
std::string router_reads(RouterKind k) {
  switch (k) {
    case RouterKind::kRoundRobin:
      return "replicas in turn, reading nothing";
    case RouterKind::kLeastLoaded:
      return "fewest requests in flight, by its own count of what it sent and what was answered";
    case RouterKind::kPrefixAware:
      return "llm-d's scorers: the prompt's leading blocks each replica holds, from the replicas' KV events "
             "(GPU 1.0, CPU tier 0.8), its queue depth and GPU KV usage from their metrics, read without "
             "delay";
    case RouterKind::kSession:
      return "a conversation's turns to the replica its first turn went to (the least loaded then)";
    case RouterKind::kPrefixApprox:
      return "llm-d's scorers with its approximate prefix producer: the prompt's leading 64-token blocks the "
             "router itself sent each replica (an LRU of as many blocks as a replica's GPU blocks, nothing "
             "learned from the replicas), their queue depth and GPU KV usage from their metrics";
  }
  return "";
}

std::string fleet_line(const FleetSpec& f) {
  return fmt::format(
      "Fleet: {} replicas of this server behind a {} router ({}). The table's figures are the fleet's: "
      "tokens, hits and transfers summed, link utilization and KV occupancy the replicas' mean, GPU and "
      "CPU blocks per replica.\n",
      f.replicas, to_string(f.router), router_reads(f.router));
}

// Where the figures come from: scenario, model, traffic, GPU blocks, link and time model.
std::string run_header(const SweepRun& run) {
  std::string out;
  out += fmt::format("Scenario {} ({}){}\n", run.scenario.name, run.scenario.origin,
                     run.scenario.description.empty() ? "" : ": " + run.scenario.description);
  out += fmt::format("Model {} on {} x{} (weights {}, KV {}), block size {}, {} per CPU block (all ranks)\n",
                     run.server.model, run.server.hardware, run.server.tensor_parallel_size,
                     run.server.weight_dtype, run.server.kv_cache_dtype, run.server.block_size,
                     format_bytes_binary(run.cpu_block_bytes));
  if (run.scenario.trace) {
    const auto& t = *run.scenario.trace;
    out += fmt::format(
        "Traffic: the trace {} ({} tokens per block id, speed x{:g}, sample {:g}{}); the scenario's "
        "workload keys are not used\n",
        printable_path(t.path), t.options.block_tokens, t.options.speed, t.options.sample,
        t.options.limit > 0 ? fmt::format(", first {} requests", t.options.limit) : std::string());
  }
  if (run.scenario.fleet.replicas > 1) out += fleet_line(run.scenario.fleet);
  out += fmt::format("GPU KV blocks: {}\n", gpu_blocks_text(run.gpu_blocks));
  out += fmt::format("Link: {}\n", link_source_text(run.link));
  out += fmt::format("Time model: {}\n", time_model_text(run.time_model));
  const auto expected = expected_error_text(run.expected_error);
  out += fmt::format("Expected error against real vLLM: {}\n",
                     expected.empty() ? "not scored for this calibration" : expected);
  for (const auto& n : run.notes) out += fmt::format("Note: {}\n", sim_note_text(n));
  out += "Simulated: every figure below comes from these models, not from a measurement.\n\n";

  return out;
}

// One row per sweep point, with the same point without a CPU tier beside it.
std::string points_table(const SweepRun& run) {
  std::vector<std::string> header;
  for (const auto& a : run.axes) header.push_back(a.key);
  for (const char* h : {"GPU blk", "CPU blk", "out tok/s", "TTFT p50", "TTFT p99", "TPOT p50", "e2e p99",
                        "preempt", "recomputed", "GPU hit", "CPU hit", "H2D GB", "D2H GB",
                        "link util h2d/d2h", "KV occ", "vs no offload: tok/s", "TTFT p50", "TTFT p99"}) {
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
    row.push_back(p.offloading ? ratio_text(r.output_tokens_per_s, p.baseline.output_tokens_per_s)
                               : "baseline");
    row.push_back(p.offloading ? ratio_text(r.ttft_s.p50, p.baseline.ttft_s.p50) : "baseline");
    row.push_back(p.offloading ? ratio_text(r.ttft_s.p99, p.baseline.ttft_s.p99) : "baseline");
    t.add_row(row);
  }
  return t.render();
}

// Each replica's share of one point: what the router sent it and how it fared.
std::string replicas_table(const SweepPoint& p) {
  TextTable t({"replica", "requests", "prompt tok", "TTFT p50", "TTFT p99", "GPU hit", "CPU hit", "preempt",
               "CPU peak blk", "KV occ", "busy"});
  for (std::size_t i = 0; i < p.result.replicas.size(); ++i) {
    const auto& r = p.result.replicas[i];
    t.add_row({std::to_string(i), format_count(r.requests), format_count(r.prompt_tokens),
               latency(r.ttft_s, r.ttft_s.p50), latency(r.ttft_s, r.ttft_s.p99), percent(r.gpu_hit_rate),
               percent(r.cpu_hit_rate), format_count(r.preemptions), format_count(r.cpu_tier_peak_blocks),
               percent(r.kv_occupancy_mean),
               percent(p.result.makespan_s > 0 ? r.engine_busy_s / p.result.makespan_s : 0.0)});
  }
  return t.render();
}

std::string replica_tables(const SweepRun& run) {
  std::string out;
  for (const auto& p : run.points) {
    if (p.result.replicas.empty()) continue;
    std::string params;
    for (const auto& [k, v] : p.params) params += fmt::format("{}{}={}", params.empty() ? "" : ", ", k, v);
    out += fmt::format("\nReplicas{}{} (busy = engine step time / makespan):\n", params.empty() ? "" : " at ",
                       params);
    out += replicas_table(p);
  }
  return out;
}

// Requests the client abandoned: after its own timeout, or in flight when it stopped at the
// workload's duration (GuideLLM's --max-seconds); the result counts both as timed out.
std::string timed_out_line(std::int64_t count, const WorkloadSpec& w) {
  const auto n = format_count(count);
  if (w.duration_s > 0 && w.client_timeout_s > 0) {
    return fmt::format(
        "{} requests timed out: the client gave up after {:g} s (workload client-timeout) "
        "or they were in flight when it stopped at {:g} s (workload duration); "
        "vLLM aborted them and they are not counted above.\n",
        n, w.client_timeout_s, w.duration_s);
  }
  if (w.duration_s > 0) {
    return fmt::format(
        "{} requests were cut off: in flight when the client stopped at {:g} s (workload duration), "
        "vLLM aborted them; they are not counted above (JSON timed_out_requests).\n",
        n, w.duration_s);
  }
  return fmt::format(
      "{} requests timed out: the client gave up after {:g} s (workload client-timeout) "
      "and vLLM aborted them; they are not counted above.\n",
      n, w.client_timeout_s);
}

// An interruption, then what the first point's counts mean.
std::string run_footer(const SweepRun& run) {
  std::string out;
  if (run.interrupted) {
    out +=
        fmt::format("\nInterrupted during {}: {} point{} finished are shown; the rest were not simulated.\n",
                    run.interrupted_during, run.points.size(), run.points.size() == 1 ? "" : "s");
  }
  if (run.points.empty()) return out;
  const auto& first = run.points.front().result;
  out += fmt::format(
      "\n{} requests per point; prompt {} tokens, output {} tokens in all (first point). "
      "tok/s = output tokens / makespan; hit rates are shares of prompt tokens; util = link busy time / "
      "makespan, per rank.\n",
      format_count(first.requests), format_count(first.prompt_tokens), format_count(first.output_tokens));
  if (first.clipped_prompts > 0) {
    out += fmt::format(
        "{} first turns were longer than max-model-len and clipped to fit (workload over-length: clip); "
        "vLLM would reject them.\n",
        format_count(first.clipped_prompts));
  }
  if (first.timed_out > 0) out += timed_out_line(first.timed_out, run.scenario.workload);
  if (first.rejected_requests > 0) {
    out += fmt::format(
        "{} trace requests were longer than max-model-len and refused, as vLLM refuses them (not "
        "counted above).\n",
        format_count(first.rejected_requests));
  }
  return out;
}

}  // namespace

std::string simulate_text(const SweepRun& run) {
  return run_header(run) + points_table(run) + secondary_tier_tables(run) + replica_tables(run) +
         run_footer(run);
}

}  // namespace kvb
