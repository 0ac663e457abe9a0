#include "assess/default_assessment.hpp"

#include <fmt/format.h>

#include <filesystem>

#include <chrono>

#include "advise/workload_sizing.hpp"
#include "backend/backend_registry.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/worker_pool.hpp"
#include "dma/dma_json.hpp"
#include "dma/link_profile_fit.hpp"
#include "output/dma/dma_output.hpp"
#include "output/simulate/sim_document.hpp"
#include "output/simulate/sim_output.hpp"
#include "output/size/size_json.hpp"
#include "output/size/size_json_writer.hpp"
#include "perf/link_curve.hpp"
#include "server/server_spec.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_json.hpp"
#include "sim/sweep.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"

namespace kvb {

DmaSweepSettings AssessmentSettings::quick_dma_settings() {
  DmaSweepSettings d;
  d.block = "4KiB,16KiB,64KiB,256KiB,1MiB,2MiB,4MiB,16MiB";
  d.rule.min_seconds = 0.05;
  d.rule.max_seconds = 1.0;
  d.rule.precision = 0.02;  // the median to +-2%: an assessment, not a regression baseline
  d.rule.min_samples = 10;
  d.rule.warmups = 2;
  return d;
}

namespace {

// Every setting that can be wrong fails here, in a second, not after a minute of measuring.
void check_before_measuring(const AssessmentSettings& s, bool gpu) {
  validate_stopping_rule(s.dma.rule);
  std::vector<BlocksReduced> reduced;
  (void)plan_dma_cases(s.dma, gpu, reduced);
  if (!s.compute_blocks.empty()) {
    auto cs = s.dma;
    cs.block = s.compute_blocks;
    try {
      (void)plan_dma_cases(cs, gpu, reduced);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--compute-block: ") + e.what());
    }
  }
  if (!s.hw.empty()) (void)resolve_hardware(s.hw);
  (void)load_scenario(s.scenario);
  std::vector<std::string> notes;
  for (const auto& name : split(s.models, ',')) (void)resolve_model(name, notes);
  if (!s.save_json_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(s.save_json_dir, ec)) {
      throw UsageError(fmt::format(
          "--save-json '{}': {}; expected an existing directory (dma.json, simulate.json and "
          "size.json are written into it)",
          s.save_json_dir,
          std::filesystem::exists(s.save_json_dir, ec) ? "not a directory" : "no such directory"));
    }
    for (const char* name : {"dma.json", "simulate.json", "size.json"}) {
      require_writable_output(s.save_json_dir + "/" + name, LinkRule::kReplaceLink);
    }
  }
}

void save(const AssessmentSettings& s, const std::string& name, const nlohmann::json& doc,
          const AssessmentLog& log) {
  if (s.save_json_dir.empty()) return;
  const auto path = s.save_json_dir + "/" + name;
  write_file_atomically(path, json_text(doc, 1), LinkRule::kReplaceLink);
  log("wrote " + path);
}

// Runs the dma sweep (and the --with-compute cases) into `in`; returns what was measured on. The
// backend, with pools of up to 4 x 8 GiB on a GPU, is gone when this returns.
DeviceInfo measure_dma(const AssessmentSettings& s, BackendKind kind, ReportInputs& in,
                       const AssessmentLog& log) {
  std::string notice;
  std::vector<BlocksReduced> notes;
  auto backend = make_backend(kind, s.device, notice);
  if (!notice.empty()) {
    log("notice: " + notice);
    in.notes.push_back(notice);
  }
  const bool gpu = backend_kind_of(backend->info()) != BackendKind::kHost;
  const auto cases = plan_dma_cases(s.dma, gpu, notes);
  for (const auto& n : notes) in.notes.push_back("dma: " + blocks_reduced_text(n));
  log(fmt::format("dma: {} cases on {} ({})", cases.size(), backend->info().name, backend->info().backend));
  const auto start = std::chrono::steady_clock::now();
  in.dma = run_dma_cases(
      *backend, cases, s.dma.rule, [&](std::size_t i, std::size_t total, const std::string& id) {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (i % 12 == 0 && t > 2) log(fmt::format("dma: [{}/{}] {}", i + 1, total, id));
      });
  // The compute slowdown: fewer sizes, one way each, with the compute load beside the copies.
  if (!s.compute_blocks.empty()) {
    auto cs = s.dma;
    cs.block = s.compute_blocks;
    cs.direction = "h2d,d2h";
    cs.with_compute = true;
    const auto compute_cases = plan_dma_cases(cs, gpu, notes);
    log(fmt::format("dma --with-compute: {} cases", compute_cases.size()));
    for (auto& r : run_dma_cases(*backend, compute_cases, cs.rule)) in.dma.push_back(std::move(r));
  }
  in.sources.push_back(fmt::format("kvbench dma, measured now: {} cases on {} ({} backend)", in.dma.size(),
                                   backend->info().name, backend->info().backend));
  return backend->info();
}

}  // namespace

namespace {

// The hardware the sizing and simulation assume: --hw, else this node's GPU, else the default, said so.
std::string choose_hardware(const AssessmentSettings& s, const DeviceInfo& device, bool gpu,
                            ReportInputs& in) {
  std::string hw = s.hw;
  if (hw.empty()) hw = gpu ? hardware_for_device_name(device.name) : std::string();
  if (hw.empty()) {
    hw = kDefaultHardware;
    in.notes.push_back(fmt::format("hardware not detected ({}): sizing and simulation assume {}; pass --hw",
                                   gpu ? device.name : std::string("no GPU"), kDefaultHardware));
  }
  hw = resolve_hardware(hw).name;
  in.hardware_basis = !s.hw.empty() ? fmt::format("Sized for {} (--hw), not for this node's GPU.", hw)
                      : hw == kDefaultHardware && (!gpu || hardware_for_device_name(device.name).empty())
                          ? fmt::format(
                                "Assumed hardware: {} ({}: pass --hw to size another GPU). Nothing below "
                                "describes this node's GPU.",
                                kDefaultHardware,
                                gpu ? "this node's " + device.name + " is not in the hardware table"
                                    : "no GPU found on this node")
                          : fmt::format("Sized for this node's GPU: {} ({}).", device.name, hw);

  return hw;
}

// The shipped scenario's traffic on the server the sizing section describes (the models' own
// context length, vLLM's memory defaults): its server-only keys (a deliberately small
// kv-cache-memory, its context length) would otherwise make the simulation a different server
// from the one the recommendation sizes, and the page would contradict itself.
Scenario on_sizing_server(const AssessmentSettings& s, const std::string& hw) {
  auto scenario = with_override(load_scenario(s.scenario), "hardware", hw, "--hw");
  ServeSettings serve;
  auto server = scenario.server;
  server.kv_cache_memory.reset();
  server.num_gpu_blocks_override.reset();
  server.max_model_len = s.max_model_len;
  server.gpu_memory_utilization = serve.gpu_memory_utilization;
  if (s.server_flags) s.server_flags(server);
  return with_server(scenario, server);
}

// The scenario's sweep on that server, on this run's measured link where a GPU's link was measured.
struct DefaultSimulation {
  Scenario scenario;
  std::optional<LinkProfile> link;
};
DefaultSimulation simulate_default(const AssessmentSettings& s, const std::string& hw, bool gpu,
                                   ReportInputs& in, const AssessmentLog& log) {
  auto scenario = on_sizing_server(s, hw);
  std::optional<LinkProfile> link;
  if (gpu) {
    try {
      link = link_profile_from_dma_records(in.dma, scenario.server.link_method, "this run's dma sweep");
    } catch (const UsageError& e) {
      in.notes.push_back(std::string("simulation: the hardware table's link figure is used: ") + e.what());
    }
  } else {
    in.notes.push_back(
        "simulation: the link is the hardware table's figure (a host-backend sweep measures no link)");
  }
  log(fmt::format("simulate: scenario {} on {}", scenario.name, hw));
  const auto run = run_sweep(scenario, scenario.sweep, link, SimOptions{.jobs = usable_cores()});
  const auto sim_doc = simulate_json(run);
  add_report_document(in, sim_doc, "kvbench simulate, run now");
  save(s, "simulate.json", sim_doc, log);

  return {scenario, link};
}

// The main models sized on `hw`, the scenario's model by its simulated traffic on the same server
// and link (listed first: the report's first lines state it), the others by the rule.
void size_default(const AssessmentSettings& s, const std::string& hw, const DefaultSimulation& simulated,
                  ReportInputs& in, const AssessmentLog& log) {
  const auto& scenario = simulated.scenario;
  ServeSettings serve;
  serve.max_model_len = s.max_model_len;
  serve.tensor_parallel_auto = true;
  if (s.server_flags) s.server_flags(serve);
  log(fmt::format("size --workload {}: simulating the tier-size curve", scenario.name));
  std::vector<Sizing> sizings{size_with_workload({.scenario = scenario,
                                                  .node = {},
                                                  .objective = TierObjective::kBalanced,
                                                  .slo = {},
                                                  .jobs = usable_cores(),
                                                  .link = simulated.link})};
  for (const auto& name : split(s.models, ',')) {
    std::vector<std::string> warnings;
    const auto model = resolve_model(name, warnings);
    if (model.name == sizings.front().server.model) continue;  // one row per server: the simulated one
    sizings.push_back(compute_sizing(make_sizing_inputs(model, resolve_hardware(hw), serve)));
  }
  const auto size_doc = sizings_document(sizings);
  add_report_document(in, size_doc, "kvbench size, computed now");
  save(s, "size.json", size_doc, log);
}

}  // namespace

ReportInputs run_default_assessment(const AssessmentSettings& s, const AssessmentLog& log) {
  ReportInputs in;
  const auto kind = parse_backend(s.backend);
  check_before_measuring(s, kind != BackendKind::kHost);
  // 1. dma on the best backend present (its memory is freed before the simulation runs).
  const DeviceInfo device = measure_dma(s, kind, in, log);
  const bool gpu = backend_kind_of(device) != BackendKind::kHost;
  save(s, "dma.json", dma_json(in.dma), log);
  // 2. The hardware the sizing and simulation assume; 3. the default simulation sweep; 4. sizing.
  const auto hw = choose_hardware(s, device, gpu, in);
  const auto simulated = simulate_default(s, hw, gpu, in, log);
  size_default(s, hw, simulated, in, log);
  return in;
}

}  // namespace kvb
