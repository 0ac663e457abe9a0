// `kvbench simulate`: a discrete-event simulation of a vLLM-like server with a paged GPU KV
// cache, preemption, prefix caching and vLLM's native CPU offloading tier.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
#include "output/common/link_origin_text.hpp"
#include "output/common/text_table.hpp"
#include "output/simulate/sim_document.hpp"
#include "output/simulate/sim_output.hpp"
#include "output/size/logged_pool_text.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"
#include "size/logged_pool.hpp"

namespace kvb {
namespace {

struct SimulateOptions {
  std::string scenario = "chat-multi-turn";
  ServerFlags
      server;        // --model, --hw and every server flag size takes, over the scenario's (cli/server_flags)
  FleetFlags fleet;  // --replicas, --router
  std::string requests;
  std::string seed;
  std::vector<std::string> set;
  std::vector<std::string> sweep;
  bool no_sweep = false;
  std::string link_profile;
  std::string storage_profile;  // a kvbench storage JSON: the secondary tier's rates
  std::string calibration;
  bool check = false;
  std::string jobs;
  OutputFlags out;
  bool list = false;
  TraceFlags trace;           // --trace FILE: replay it instead of the scenario's workload
  std::string from_vllm_log;  // a vLLM start-up log: simulate that server, its pool as logged
};

std::string list_scenarios_text() {
  TextTable t({"scenario", "model", "hardware", "requests", "sweep", "description"});
  for (const auto& name : shipped_scenario_names()) {
    const auto s = load_scenario(name);
    std::vector<std::string> sweep;
    for (const auto& a : s.sweep) sweep.push_back(a.key + "=" + join(a.values, ","));
    t.add_row({name, s.server.model, s.server.hardware, format_count(s.workload.requests), join(sweep, " "),
               s.description});
  }
  return t.render();
}

// --from-vllm-log: the logged server (its model, its flags on vLLM's defaults, the flags given over
// them, the pool it logged as kv-cache-memory) replaces the scenario's; the simulator's own keys
// (prefix caching, eviction, tier costs) stay the scenario's. Which figures came from the log: stderr.
Scenario apply_logged_server(Scenario s, const SimulateOptions& o) {
  const auto log = read_vllm_startup_log(o.from_vllm_log);
  const auto name = fmt::format("--from-vllm-log '{}'", printable_path(o.from_vllm_log));
  require_logged_pool(log, name);
  const auto model = logged_model(log, o.server.model, name);
  if (o.server.model.empty()) s = with_override(s, "model", model.name, name);
  const auto hw = resolve_hardware(s.server.hardware);
  const auto logged = logged_server(log, o.server, name);
  auto sized = size_with_logged_pool(model, hw, logged.serve, {}, log);
  ServerSpec server = s.server;
  static_cast<ServeSettings&>(server) = logged.serve;
  if (!sized.pool.pool_given) {
    server.kv_cache_memory =
        static_cast<std::uint64_t>(sized.pool.blocks) * static_cast<std::uint64_t>(sized.pool.block_bytes);
  }
  sized.pool.from_log = logged.from_log;
  sized.pool.overridden = logged.overridden;
  if (!o.server.model.empty() && !log.models.empty())
    sized.pool.overridden.push_back("model " + o.server.model);
  std::fputs(logged_pool_text(sized.pool, printable_path(o.from_vllm_log), hw.name).c_str(), stderr);
  return with_server(s, server);
}

// The flags that mirror scenario keys become overrides, applied before --set.
Scenario apply_flags(Scenario s, const SimulateOptions& o) {
  const auto flag = [&](const std::string& key, const std::string& value, const char* what) {
    if (!value.empty()) s = with_override(s, key, value, what);
  };
  flag("model", o.server.model, "--model");
  flag("hardware", o.server.hw, "--hw");
  if (!o.from_vllm_log.empty()) {
    s = apply_logged_server(std::move(s), o);
  } else if (any_server_flag(o.server)) {
    // The same flags and the same function as size, checked by the scenario's server keys.
    ServerSpec server = s.server;
    apply_server_flags(o.server, server);
    s = with_server(s, server);
  }
  if (!o.requests.empty())
    flag("workload.requests",
         std::to_string(parse_positive_int(o.requests, "--requests", false, kMaxRequests)), "--requests");
  if (!o.seed.empty())
    flag("seed", std::to_string(parse_positive_int(o.seed, "--seed", true, kMaxSeed)), "--seed");
  s = apply_fleet_flags(std::move(s), o.fleet);
  for (const auto& kv : o.set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(fmt::format("--set '{}': expected KEY=VALUE (e.g. workload.arrival.rate=8)", kv));
    }
    s = with_override(s, kv.substr(0, eq), kv.substr(eq + 1), "--set");
  }
  return s;
}

// simulate's printers: the table, kvbench/simulate/v1.
const Printers<SweepRun> kSimulatePrinters{
    {OutputFormat::kTable, [](const SweepRun& run) { return simulate_text(run); }},
    {OutputFormat::kJson, [](const SweepRun& run) { return json_text(simulate_json(run), 1); }}};

int run_simulate(const SimulateOptions& o) {
  if (o.list) {
    std::fputs(list_scenarios_text().c_str(), stdout);
    return kExitOk;
  }
  auto scenario = apply_flags(load_scenario(o.scenario), o);
  if (!o.trace.file.empty()) {
    if (!o.requests.empty()) {
      throw UsageError(
          "--requests sets the generated workload's size; with --trace expected --trace-limit N");
    }
    scenario.trace = TraceInput{o.trace.file, parse_trace_options(o.trace)};
    note_sample_over_fleet(scenario.trace->options, scenario.fleet.replicas);
    require_rereadable_trace(o.trace.file);  // each sweep point reads it from its start
    TraceReader check(o.trace.file,
                      scenario.trace->options);  // a missing or unreadable file: exit 2 before any run
  }
  if (!o.calibration.empty()) scenario.calibration = load_calibration(o.calibration);
  std::vector<SweepAxis> axes;
  for (const auto& s : o.sweep) axes.push_back(parse_sweep_axis(s));
  if (axes.empty() && !o.no_sweep) axes = scenario.sweep;
  check_sweep_points(axes, "--sweep");
  std::optional<LinkProfile> link;
  if (!o.link_profile.empty()) {
    link = link_profile_from_dma_json(o.link_profile, scenario.server.link_method);
    if (const auto warning = link_warning_text(*link); !warning.empty()) print_warning(warning);
  }
  if (!o.storage_profile.empty()) scenario = with_storage_profile(scenario, o.storage_profile, link);

  const auto format = chosen_format(o.out);

  SimOptions sim;
  sim.check_invariants = o.check;
  sim.jobs = jobs_from_flag(o.jobs);
  const auto start = std::chrono::steady_clock::now();
  const auto progress = [&](std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > 2.0 && done < total)
      std::fprintf(stderr, "kvbench: simulated %zu of %zu points (%.1f s)\n", done, total, elapsed);
  };
  const auto run = run_sweep(scenario, axes, link, sim, progress);
  emit_result(o.out, format, kSimulatePrinters, run);
  return kExitOk;
}

}  // namespace

Command register_simulate(CLI::App& parent) {
  auto o = std::make_shared<SimulateOptions>();
  auto* app = parent.add_subcommand(
      "simulate", "discrete-event simulation of vLLM serving with a paged KV cache and CPU offloading");
  app->add_option("scenario", o->scenario, "shipped scenario name (see --list) or a scenario YAML file")
      ->capture_default_str();
  add_server_flags(app, o->server,
                   ServerFlagSet(ModelUse::kScenarioOverride));  // each overrides its scenario key
  add_fleet_flags(app, o->fleet);
  app->add_option("--requests", o->requests, "override the number of requests");
  app->add_option("--seed", o->seed, "override the scenario's seed");
  app->add_option("--set", o->set, "KEY=VALUE: set any scenario key (dotted for nesting), repeatable");
  app->add_option("--sweep", o->sweep, "KEY=V1,V2,...: sweep a scenario key; repeat for a product")
      ->take_all();
  app->add_flag("--no-sweep", o->no_sweep, "ignore the scenario's default sweep: one point");
  app->add_option("--link-profile", o->link_profile, "kvbench dma JSON to take link bandwidth from");
  app->add_option("--storage-profile", o->storage_profile,
                  "kvbench storage JSON to take the secondary tier's read and write rates from (the chunk "
                  "size nearest its block), instead of --secondary-read-gbps/--secondary-write-gbps");
  app->add_option("--calibration", o->calibration,
                  "YAML with compute-efficiency, memory-efficiency, step-overhead-us for the time model");
  app->add_flag("--check", o->check,
                "audit the KV pool and CPU tier after every step (slow; exit 1 on a violation)");
  add_jobs_flag(app, o->jobs);
  add_output_flags(app, o->out, formats_of(kSimulatePrinters), kSimulateSchema);
  app->add_flag("--list", o->list, "list the shipped scenarios");
  app->add_option(
      "--trace", o->trace.file,
      "replay this request trace (Mooncake JSONL, kvbench JSONL or CSV: docs/trace.md) instead of the "
      "scenario's workload; the scenario gives the server");
  add_trace_reading_flags(app, o->trace);
  app->add_option(
      "--from-vllm-log", o->from_vllm_log,
      "a vLLM server's start-up log: simulate that server (its model, flags and release) with the GPU "
      "KV pool it logged, on the scenario's traffic; flags given override the log's");
  return Command{app, [o] { return run_simulate(*o); }};
}

}  // namespace kvb
