// `kvbench size`: vLLM's KV arithmetic, what fits on the GPU, and a recommended
// --kv-offloading-size, with the exact vLLM command line.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "advise/workload_sizing.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "cli/command.hpp"
#include "cli/fleet_flags.hpp"
#include "cli/from_vllm_log.hpp"
#include "cli/jobs_flag.hpp"
#include "cli/output_flags.hpp"
#include "cli/server_flags.hpp"
#include "cli/storage_profile.hpp"
#include "cli/trace_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "dma/link_profile_fit.hpp"
#include "output/catalog/catalog_text.hpp"
#include "output/size/logged_pool_text.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "output/size/size_text.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "sim/scenario.hpp"
#include "size/logged_pool.hpp"
#include "size/secondary_tier_plan.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {
namespace {

struct SizeOptions {
  ServerFlags server;  // --model, --hw (comma lists), vLLM's flags and the tier's (cli/server_flags)
  std::string gpu_memory;
  std::string host_memory;
  std::string concurrency;
  std::string link_profile;
  std::string calibration;
  std::string engine = "vllm";
  OutputFlags out;
  bool list_models = false;
  bool list_hardware = false;
  std::string workload;  // a shipped workload or a scenario YAML: simulate the tier size
  std::string objective = "balanced";
  TraceFlags trace;  // --trace FILE: size the tier for this recorded traffic
  FleetFlags fleet;  // --replicas, --router: the traffic is a fleet's
  std::string slo_ttft;
  std::string slo_tpot;
  std::string requests;
  std::string seeds;
  std::string jobs;
  std::string from_vllm_log;       // a vLLM start-up log: size that server with the pool it logged
  std::string storage_profile;     // a kvbench storage JSON: the secondary tier's rates (with a traffic)
  std::string secondary_tier_dir;  // the secondary tier's directory in the commands
  CLI::App* app = nullptr;         // to tell the flags given from their defaults
};

// The flags' server on vLLM's defaults; size/ does the rest.
ServeSettings serve_settings(const SizeOptions& o) {
  ServeSettings v;
  // Neither --tp, --pp nor --dp: the configuration search picks TP, PP, FP8 weights and DP x EP.
  v.tensor_parallel_auto = !parallelism_given(o.server);
  apply_server_flags(o.server, v);
  return v;
}

NodeOverrides node_overrides(const SizeOptions& o, const ServeSettings& serve) {
  NodeOverrides n;
  // No GPU or host that serves an LLM has less than 1 GiB: a smaller figure is a typo (1KiB for 1TiB).
  const auto at_least_1gib = [](const std::string& text, const char* what) {
    const auto bytes = parse_bytes(text, what).bytes;
    if (static_cast<double>(bytes) < kGiB) {
      throw UsageError(
          fmt::format("{} '{}': expected at least 1 GiB of memory (e.g. 80GiB, 1TB)", what, text));
    }
    return static_cast<double>(bytes);
  };
  if (!o.gpu_memory.empty()) n.gpu_memory_gib = at_least_1gib(o.gpu_memory, "--gpu-memory") / kGiB;
  if (!o.host_memory.empty()) n.host_memory_gb = at_least_1gib(o.host_memory, "--host-memory") / 1e9;
  if (!o.concurrency.empty()) {
    n.concurrency = static_cast<int>(parse_positive_int(o.concurrency, "--concurrency", false, 1'000'000));
  }
  if (!o.link_profile.empty()) n.link = link_profile_from_dma_json(o.link_profile, serve.link_method);
  n.calibration = o.calibration;
  n.engine = parse_engine(o.engine, "--engine");
  // Only size's default (no --tp, --pp or --dp): --tp auto asks for TP, as its help says.
  n.search_data_parallel = serve.tensor_parallel_auto && o.server.text("tensor-parallel-size").empty();
  n.secondary_tier_dir = check_secondary_tier_dir(o.secondary_tier_dir, serve);
  check_engine_and_backend(n.engine, serve.kv_offloading_backend);
  // A stated tier vLLM would not run: refused, one line (with a traffic the CPU tier is simulated).
  check_secondary_tier(serve, n.engine, !o.workload.empty() || !o.trace.file.empty());
  return n;
}

bool given(const SizeOptions& o, const char* flag) { return o.app->get_option(flag)->count() > 0; }

// The traffic to simulate: a workload file's (its server keys are not used: size_with_workload
// names them) or a trace's, on the server the flags describe.
WorkloadSizingRequest traffic_request(const SizeOptions& o) {
  if (o.server.model.find(',') != std::string::npos || o.server.hw.find(',') != std::string::npos) {
    throw UsageError(
        "--workload/--trace: expected one --model and one --hw (a table of configurations is not "
        "simulated)");
  }
  if (!o.workload.empty() && !o.trace.file.empty()) {
    throw UsageError("--workload and --trace: expected one traffic, a workload or a trace");
  }
  WorkloadSizingRequest r;
  r.serve = serve_settings(o);
  r.fleet = fleet_from_flags(o.fleet);
  if (!o.seeds.empty()) r.seeds = static_cast<int>(parse_positive_int(o.seeds, "--seeds", false, kMaxSeeds));
  r.jobs = jobs_from_flag(o.jobs);
  if (!o.server.model.empty()) r.model = o.server.model;
  if (o.server.hw_given()) r.hardware = o.server.hw;
  r.node = node_overrides(o, *r.serve);
  if (!o.trace.file.empty()) {
    if (o.server.model.empty()) throw UsageError("--trace: expected --model (the trace holds no model)");
    if (!o.requests.empty())
      throw UsageError("--requests sets a generated workload's size; with --trace expected --trace-limit N");
    if (!o.seeds.empty())
      throw UsageError(
          "--seeds draws a generated workload again; a trace is one recorded traffic: expected --seeds with "
          "--workload, or no --seeds with --trace");
    r.scenario.name = printable_path(std::filesystem::path(o.trace.file).filename().string());
    r.scenario.origin = printable_path(o.trace.file);
    r.scenario.trace = TraceInput{o.trace.file, parse_trace_options(o.trace)};
    note_sample_over_fleet(r.scenario.trace->options, r.fleet.replicas);
    require_rereadable_trace(o.trace.file);  // its curve, then each tier size, read it from its start
    TraceReader check(o.trace.file, r.scenario.trace->options);  // unreadable or malformed start: exit 2 now
    r.scenario.server.model = o.server.model;
    r.scenario.server.hardware = o.server.hw;
    if (!o.storage_profile.empty()) apply_storage_profile(r, o.storage_profile);
    return r;
  }
  r.scenario = load_scenario(o.workload);
  // Through the workload's reader: checked and refused as the file's key would be.
  if (!o.requests.empty()) {
    const auto n = parse_positive_int(o.requests, "--requests", false, kMaxRequests);
    r.scenario = with_override(r.scenario, "workload.requests", std::to_string(n), "--requests");
  }
  if (!o.storage_profile.empty()) apply_storage_profile(r, o.storage_profile);
  return r;
}

// --objective, --slo-ttft and --slo-tpot, checked together: SLOs belong to goodput and goodput needs one.
std::pair<TierObjective, ServiceLevel> objective_and_slo(const SizeOptions& o) {
  const auto objective = parse_tier_objective(o.objective, "--objective");
  ServiceLevel slo;
  if (!o.slo_ttft.empty()) slo.ttft_s = parse_seconds(o.slo_ttft, "--slo-ttft");
  if (!o.slo_tpot.empty()) slo.tpot_s = parse_seconds(o.slo_tpot, "--slo-tpot");
  const bool any_slo = slo.ttft_s || slo.tpot_s;
  if (any_slo && objective != TierObjective::kGoodput) {
    throw UsageError(
        fmt::format("--slo-ttft/--slo-tpot: only --objective goodput reads them (got --objective {}); "
                    "expected --objective goodput",
                    o.objective));
  }
  if (!any_slo && objective == TierObjective::kGoodput) {
    throw UsageError(
        "--objective goodput: expected --slo-ttft and/or --slo-tpot (e.g. --slo-ttft 2s --slo-tpot 50ms)");
  }
  const bool needs_workload = any_slo || given(o, "--objective") || !o.requests.empty() || !o.seeds.empty() ||
                              !o.fleet.replicas.empty() || !o.fleet.router.empty();
  if (needs_workload && o.workload.empty() && o.trace.file.empty()) {
    throw UsageError(
        "--objective/--slo-ttft/--slo-tpot/--requests/--seeds/--replicas/--router judge a simulated traffic: "
        "expected --workload NAME|FILE (kvbench simulate --list) or --trace FILE");
  }
  if (!o.storage_profile.empty() && o.workload.empty() && o.trace.file.empty())
    throw UsageError(
        "--storage-profile: its rates are a simulated secondary tier's; expected --workload NAME|FILE or "
        "--trace "
        "FILE with --secondary-tier-size");
  return {objective, slo};
}

// One configuration: its full reasoning (and the FP8-weights retry after it); several: one table.
std::string sized_text(const SizedConfigurations& sized) {
  const auto& all = sized.results;
  if (all.size() == 1) return sizing_text(all.front());
  if (sized.fp8_retry) {
    return sizing_text(all[0]) +
           "\n================ the same with --quantization fp8 (FP8 weights) ================\n\n" +
           sizing_text(all[1]);
  }
  return "Computed from vLLM's KV arithmetic and the stated budget model; none of it measured.\n" +
         sizing_summary_table(all) + "One model and one --hw give the full reasoning and the vLLM command.\n";
}

// What size answers: the configurations sized, and before them (the table only) what a vLLM
// start-up log gave, as output/size/logged_pool_text words it.
struct SizeAnswer {
  SizedConfigurations sized;
  std::string log_lines;
};

// size's printers: the reasoning or the table, kvbench/size/v1.
const Printers<SizeAnswer> kSizePrinters{
    {OutputFormat::kTable, [](const SizeAnswer& a) { return a.log_lines + sized_text(a.sized); }},
    {OutputFormat::kJson,
     [](const SizeAnswer& a) { return json_text(sizings_document(a.sized.results), 2); }}};

// --workload / --trace: the tier size simulated for that traffic, on the flags' server.
int run_traffic_sizing(const SizeOptions& o, OutputFormat format, TierObjective objective,
                       const ServiceLevel& slo) {
  auto request = traffic_request(o);
  // The trace or workload file is known now: -o naming it is refused before the simulations.
  if (!o.out.output.empty()) require_writable_output(o.out.output);
  request.objective = objective;
  request.slo = slo;
  emit_result(o.out, format, kSizePrinters, SizeAnswer{{{size_with_workload(request)}}, ""});
  return kExitOk;
}

std::vector<ModelSpec> models_of(const SizeOptions& o) {
  if (o.server.model.empty()) {
    throw UsageError(
        "--model is required: a catalog name (kvbench size --list-models), a comma-separated list, or a "
        "path to a config.json");
  }
  std::vector<std::string> warnings;
  std::vector<ModelSpec> models;
  for (const auto& name : split(o.server.model, ',')) {
    if (name.empty()) {
      throw UsageError(
          fmt::format("--model '{}': an empty name in the list; expected names separated by single commas",
                      o.server.model));
    }
    models.push_back(resolve_model(name, warnings));
  }
  for (const auto& w : warnings) print_warning(w);
  return models;
}

// --from-vllm-log: the server the log describes, its pool as logged (size/logged_pool), the flags
// given over the log's; the lines saying which figures came from the log come first.
int run_logged_sizing(const SizeOptions& o, OutputFormat format) {
  if (!o.workload.empty() || !o.trace.file.empty())
    throw UsageError(
        "--from-vllm-log sizes the logged server alone; expected no --workload or --trace with it");
  if (o.server.hw.find(',') != std::string::npos)
    throw UsageError("--from-vllm-log: expected one --hw (the log is one server)");
  const auto log = read_vllm_startup_log(o.from_vllm_log);
  const auto name = fmt::format("--from-vllm-log '{}'", printable_path(o.from_vllm_log));
  require_logged_pool(log, name);
  const auto model = logged_model(log, o.server.model, name);
  const auto hw = resolve_hardware(o.server.hw);
  const auto server = logged_server(log, o.server, name);
  auto logged = size_with_logged_pool(model, hw, server.serve, node_overrides(o, server.serve), log);
  logged.pool.from_log = server.from_log;
  logged.pool.overridden = server.overridden;
  if (!o.server.model.empty() && !log.models.empty())
    logged.pool.overridden.push_back("model " + o.server.model);
  for (const auto& s : logged.sized.results)
    for (const auto& w : s.warnings)
      if (refuses_start(w)) print_warning(sizing_warning_text(w));
  const auto lines = logged_pool_text(logged.pool, printable_path(o.from_vllm_log), hw.name);
  if (format == OutputFormat::kJson) std::fputs(lines.c_str(), stderr);
  emit_result(o.out, format, kSizePrinters, SizeAnswer{logged.sized, lines});
  return kExitOk;
}

int run_size(const SizeOptions& o) {
  if (o.list_models) {
    std::fputs(models_table_text().c_str(), stdout);
    return kExitOk;
  }
  if (o.list_hardware) {
    std::fputs(hardware_table_text().c_str(), stdout);
    return kExitOk;
  }
  const auto format = chosen_format(o.out);
  if (!o.from_vllm_log.empty()) return run_logged_sizing(o, format);
  const auto [objective, slo] = objective_and_slo(o);
  if (!o.workload.empty() || !o.trace.file.empty()) return run_traffic_sizing(o, format, objective, slo);
  const auto models = models_of(o);
  std::vector<HardwareSpec> hws;
  for (const auto& name : split(o.server.hw, ',')) hws.push_back(resolve_hardware(name));
  const auto serve = serve_settings(o);
  const auto sized = size_configurations(models, hws, serve, node_overrides(o, serve));
  // A tier asked for that the release cannot offload or pin: refused, before any warning (without
  // the flag, a warning like the others that keep vLLM from starting).
  for (const auto& s : sized.results)
    for (const auto& w : s.warnings) {
      const auto* pin = std::get_if<TierRegionPinFails>(&w);
      if ((serve.kv_offloading_size && std::holds_alternative<TierRefused>(w)) || (pin && pin->given))
        throw UsageError(sizing_warning_text(w));
    }
  for (const auto& s : sized.results) {
    for (const auto& w : s.warnings) {
      if (refuses_start(w)) print_warning(sizing_warning_text(w));
    }
  }
  emit_result(o.out, format, kSizePrinters, SizeAnswer{sized, ""});
  return kExitOk;
}

// What kvbench needs beyond vLLM's flags: the node, the tier's sessions, the link, the engine.
void add_node_flags(CLI::App* app, SizeOptions& o) {
  app->add_option("--gpu-memory", o.gpu_memory, "override the GPU's usable memory (e.g. 94GiB)");
  app->add_option("--host-memory", o.host_memory, "override host DRAM per node (e.g. 1TB)");
  app->add_option("--concurrency", o.concurrency, "sessions of max-model-len to keep warm in the CPU tier");
  app->add_option(
      "--link-profile", o.link_profile,
      "a kvbench dma --json result of this node: reloads use its fitted link (t0 + bytes/B per direction)");
  app->add_option(
         "--engine", o.engine,
         "the server to write the command for: vllm (native offloading), sglang (HiCache), lmcache (vLLM + "
         "LMCache), dynamo (vLLM under NVIDIA Dynamo with KVBM's host tier)")
      ->capture_default_str();
  app->add_option(
      "--calibration", o.calibration,
      "YAML with compute-efficiency, memory-efficiency, step-overhead-us for the time model (as simulate)");
  app->add_option("--secondary-tier-dir", o.secondary_tier_dir,
                  "with --secondary-tier-size: the tier's directory, written into vLLM's configuration "
                  "(default: the placeholder /mnt/kv-tier)");
}

// --workload / --trace: the traffic the tier size is simulated for, and what judges it.
void add_traffic_flags(CLI::App* app, SizeOptions& o) {
  app->add_option(
      "--workload", o.workload,
      "simulate this traffic to size the CPU tier: a shipped workload (kvbench simulate --list) or a "
      "scenario YAML; its traffic only: the server is the one these flags describe");
  app->add_option(
      "--trace", o.trace.file,
      "size the CPU tier for this recorded traffic (Mooncake JSONL, kvbench JSONL or CSV: docs/trace.md): "
      "candidate sizes from its miss-ratio curve, each simulated");
  add_trace_reading_flags(app, o.trace);
  app->add_option(
         "--objective", o.objective,
         fmt::format(
             "what the tier size is judged by: balanced (TTFT p99 -{:.0f}% or tok/s +{:.0f}%, neither "
             "worse by {:.0f}%), throughput, ttft-p99, goodput",
             kBalancedTtftGain * 100, kPaysGain * 100, kBalancedMaxLoss * 100))
      ->capture_default_str();
  app->add_option("--slo-ttft", o.slo_ttft, "goodput's TTFT target (e.g. 2s, 500ms)");
  app->add_option("--slo-tpot", o.slo_tpot, "goodput's time-per-output-token target (e.g. 50ms)");
  app->add_option("--requests", o.requests, "requests per simulated point (default: the workload's)");
  app->add_option(
      "--seeds", o.seeds,
      fmt::format("workload draws per tier size: the recommendation states the spread of their gains "
                  "(default {}; a trace runs once)",
                  kDefaultSeeds));
  add_jobs_flag(app, o.jobs);
  add_fleet_flags(app, o.fleet);
  app->add_option(
      "--storage-profile", o.storage_profile,
      "with --workload/--trace and --secondary-tier-size: a kvbench storage JSON to take the "
      "secondary tier's read and write rates from, instead of --secondary-read-gbps/--secondary-write-gbps");
}

}  // namespace

Command register_size(CLI::App& parent) {
  auto opts = std::make_shared<SizeOptions>();
  auto* app = parent.add_subcommand("size",
                                    "KV bytes per token, what fits on the GPU, and a recommended "
                                    "--kv-offloading-size with the vLLM command line");
  add_server_flags(app, opts->server, ServerFlagSet(ModelUse::kSizeTable));
  add_node_flags(app, *opts);
  add_output_flags(app, opts->out, formats_of(kSizePrinters), kSizeSchema);
  add_traffic_flags(app, *opts);
  app->add_option(
      "--from-vllm-log", opts->from_vllm_log,
      "a vLLM server's start-up log: size that server (its model, flags and release) with the GPU KV "
      "pool it logged; flags given override the log's");
  app->add_flag("--list-models", opts->list_models, "list the model catalog");
  app->add_flag("--list-hardware", opts->list_hardware, "list the hardware catalog");
  opts->app = app;
  return Command{app, [opts] { return run_size(*opts); }};
}

}  // namespace kvb
