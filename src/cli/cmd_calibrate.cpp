// `kvbench calibrate`: on a GPU, times the model's layer GEMMs (cuBLAS / hipBLAS) and an HBM copy,
// fits the time model's efficiencies and writes the calibration file simulate and size read.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/gpu_occupancy.hpp"
#include "backend/operator_timer.hpp"
#include "calibrate/calibration_file.hpp"
#include "calibrate/calibration_run.hpp"
#include "calibrate/operator_plan.hpp"
#include "calibrate/vllm_fit.hpp"
#include "calibrate/vllm_results.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "cli/server_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "output/calibrate/calibrate_documents.hpp"
#include "output/calibrate/calibrate_output.hpp"
#include "output/common/occupancy_text.hpp"
#include "output/common/time_model_text.hpp"
#include "perf/calibration.hpp"
#include "server/serve_settings.hpp"
#include "server/server_spec.hpp"
#include "sim/scenario.hpp"

namespace kvb {
namespace {

struct CalibrateOptions {
  int tp = 1;
  std::string prefill = "512,2048,8192,32768";
  std::string decode_batch = "1,8,64,256";
  std::string decode_context = "1024";
  int repetitions = 10;
  std::string step_overhead_us;
  std::string backend = "auto";
  int device = 0;
  std::string output = "kvbench-calibration.yaml";
  bool json = false;
  // --from-vllm: fit to a real vLLM server's per-request results instead of timing GEMMs.
  std::vector<std::string> from_vllm;
  ServerFlags server;  // --model, --hw; with --from-vllm, the server's flags as size and simulate spell them
  std::string num_gpu_blocks;  // --from-vllm: what vLLM logged; empty: kvbench's estimate
  std::string start;           // --from-vllm: the calibration the fit starts from (default: the GPU's)
  CLI::Option* output_flag = nullptr;
  // kvbench-calibration.yaml without -o is a name kvbench chose: a link planted there is replaced.
  LinkRule output_rule() const {
    return output_flag != nullptr && output_flag->count() > 0 ? LinkRule::kFollow : LinkRule::kReplaceLink;
  }
};

// The server the files were measured on, as a scenario the simulator replays them against: the
// shared server flags (cli/server_flags) onto a ServerSpec, checked by the scenario's own reader
// (with_server); flags not given are vLLM's defaults for that GPU.
Scenario vllm_server(const CalibrateOptions& o) {
  ServerSpec server;
  server.model = o.server.model;
  server.hardware = o.server.hw == "auto" ? kDefaultHardware : o.server.hw;
  server.tensor_parallel_size = o.tp;
  apply_server_flags(o.server, server);
  if (!o.num_gpu_blocks.empty())
    server.num_gpu_blocks_override =
        parse_positive_int(o.num_gpu_blocks, "--num-gpu-blocks", false, kMaxCount);
  Scenario s;
  s.name = "from-vllm";
  s.origin = "calibrate --from-vllm flags";
  s.workload.requests = 1;
  s.workload.arrival.process = ArrivalProcess::kFixed;
  return with_server(s, server);
}

// What a run printed: its result and the calibration file it wrote ("" when none).
template <class Result>
struct CalibrateAnswer {
  const Result& result;
  std::string written;
};

// calibrate's printers, one table per kind of run: timed GEMMs give the text or
// kvbench/calibrate/v1; a --from-vllm fit gives its text only (its one document is the -o file).
const Printers<CalibrateAnswer<CalibrationResult>> kCalibratePrinters{
    {OutputFormat::kTable,
     [](const CalibrateAnswer<CalibrationResult>& a) {
       return calibration_text(a.result) +
              (a.written.empty() ? ""
                                 : fmt::format("\nwrote {0}: kvbench simulate --calibration {0} ..., kvbench "
                                               "size --calibration {0} ...\n",
                                               printable_path(a.written)));
     }},
    {OutputFormat::kJson,
     [](const CalibrateAnswer<CalibrationResult>& a) { return json_text(calibration_json(a.result), 1); }}};
const Printers<CalibrateAnswer<VllmFit>> kFromVllmPrinters{
    {OutputFormat::kTable, [](const CalibrateAnswer<VllmFit>& a) {
       return vllm_fit_text(a.result) +
              (a.written.empty() ? ""
                                 : fmt::format("\nwrote {0}: kvbench simulate|size --calibration {0} ...\n",
                                               printable_path(a.written)));
     }}};

// --json, or the text, where the run's table offers it; else a UsageError (the run prints text only).
template <class Result>
OutputFormat calibrate_format(const CalibrateOptions& o, const Printers<Result>& printers, const char* run) {
  const auto format = o.json ? OutputFormat::kJson : OutputFormat::kTable;
  for (const auto f : formats_of(printers))
    if (f == format) return format;
  throw UsageError(
      fmt::format("--json: {} prints its result as text only (its calibration file is -o); "
                  "expected no --json",
                  run));
}

int run_from_vllm(const CalibrateOptions& o) {
  const auto format = calibrate_format(o, kFromVllmPrinters, "calibrate --from-vllm");
  auto server = vllm_server(o);
  if (!o.start.empty()) server.calibration = load_calibration(o.start);
  std::vector<VllmRun> runs;
  for (const auto& path : o.from_vllm) runs.push_back(read_vllm_run(path));
  if (!o.output.empty()) require_writable_output(o.output, o.output_rule());
  const auto fit = fit_to_vllm_runs(server, runs);
  if (!o.output.empty())
    write_file_atomically(o.output, vllm_fit_yaml(fit, utc_now("%Y-%m-%d")), o.output_rule());
  std::fputs(printed(kFromVllmPrinters, format, CalibrateAnswer<VllmFit>{fit, o.output}).c_str(), stdout);
  return 0;
}

std::vector<std::int64_t> token_list(const std::string& text, const char* flag) {
  std::vector<std::int64_t> out;
  for (const auto& part : split(text, ',')) out.push_back(parse_token_count(part, flag));
  return out;
}

// The step overhead is not measurable from operators: --step-overhead-us, else the GPU's default.
void set_step_overhead(CalibrationRequest& r, double overhead_flag) {
  const auto defaults = default_calibration(r.hw);
  if (overhead_flag >= 0) {
    r.step_overhead_us = overhead_flag;
    r.step_overhead_source = "--step-overhead-us";
  } else {
    r.step_overhead_us = defaults.step_overhead_s * 1e6;
    r.step_overhead_source =
        fmt::format("from {} (pass --step-overhead-us to set it)", calibration_origin_text(defaults.origin));
  }
}

// Other work on the GPU skews the GEMM timings: named on stderr, and kept in the calibration's notes.
std::vector<std::string> others_on_gpu(const CalibrateOptions& o) {
  std::string notice;
  const auto probe = make_backend(parse_backend(o.backend), o.device, notice);
  record_occupancy(*probe);
  const auto shared = occupancy_warnings({probe->info()});
  for (const auto& w : shared) print_warning(w);
  return shared;
}

int run_calibrate(const CalibrateOptions& o) {
  if (!o.from_vllm.empty()) return run_from_vllm(o);
  const auto format = calibrate_format(o, kCalibratePrinters, "calibrate");
  if (any_server_flag(o.server) || !o.num_gpu_blocks.empty()) {
    throw UsageError(
        "the server flags (--max-model-len, --max-num-seqs, --gpu-memory-utilization, --num-gpu-blocks, ...) "
        "describe the server of --from-vllm; without it calibrate times GEMMs and takes none");
  }
  // Everything that can be checked without a GPU is checked first (exit 2 before exit 3).
  std::vector<std::string> warnings;
  CalibrationRequest r;
  r.model = resolve_model(o.server.model, warnings);
  r.tp = o.tp;
  (void)layer_shapes(r.model, r.tp);
  r.prefill_tokens = token_list(o.prefill, "--prefill");
  r.decode_batches = token_list(o.decode_batch, "--decode-batch");
  r.decode_context = parse_token_count(o.decode_context, "--decode-context");
  r.repetitions = o.repetitions;
  if (r.repetitions < 1 || r.repetitions > 1000) {
    throw UsageError(fmt::format("--repetitions {}: expected 1 to 1000", r.repetitions));
  }
  std::optional<HardwareSpec> hw;
  if (o.server.hw != "auto") hw = resolve_hardware(o.server.hw);
  if (!o.output.empty()) require_writable_output(o.output, o.output_rule());
  const double overhead_flag =
      o.step_overhead_us.empty() ? -1 : parse_real_in(o.step_overhead_us, "--step-overhead-us", 0, 1e6, "30");

  auto timer = make_operator_timer(parse_backend(o.backend), o.device);
  if (!hw) {
    const auto name = hardware_for_device_name(timer->device_name());
    if (name.empty()) {
      throw UsageError(
          fmt::format("--hw auto: '{}' is not in the hardware table; pass --hw with the closest entry "
                      "(kvbench size --list-hardware)",
                      timer->device_name()));
    }
    hw = resolve_hardware(name);
  }
  r.hw = *hw;
  set_step_overhead(r, overhead_flag);
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const auto shared = others_on_gpu(o);
  auto result = run_calibration(*timer, r);
  result.notes = calibration_run_notes(result);
  result.notes.insert(result.notes.end(), shared.begin(), shared.end());
  if (!o.output.empty())
    write_file_atomically(o.output, calibration_yaml(result, utc_now("%Y-%m-%d")), o.output_rule());
  const CalibrateAnswer<CalibrationResult> answer{result, o.output};
  std::fputs(printed(kCalibratePrinters, format, answer).c_str(), stdout);
  return 0;
}

}  // namespace

Command register_calibrate(CLI::App& parent) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* app = parent.add_subcommand("calibrate",
                                    "on a GPU: time the model's GEMMs (cuBLAS / hipBLAS) and an HBM copy, "
                                    "fit the time model's efficiencies, write a calibration file");
  // --model, --hw; --from-vllm: the server measured, with every flag size and simulate take (its tier
  // included) but --tp/--pp: its --tp below is also the GEMM timer's rank count.
  ServerFlagSet server(ModelUse::kTimedModel, Parallelism::kExcluded);
  server.help_prefix = "--from-vllm: ";
  add_server_flags(app, o->server, server);
  app->add_option("--tp", o->tp, "tensor-parallel size: each rank's share of the shapes is timed")
      ->capture_default_str();
  app->add_option("--prefill", o->prefill, "prompt token counts to time (compute regime)")
      ->capture_default_str();
  app->add_option("--decode-batch", o->decode_batch, "decode batch sizes to time (memory regime)")
      ->capture_default_str();
  app->add_option("--decode-context", o->decode_context, "tokens of context per decoding sequence")
      ->capture_default_str();
  app->add_option("--repetitions", o->repetitions, "timed passes per point (median reported)")
      ->capture_default_str();
  app->add_option("--step-overhead-us", o->step_overhead_us,
                  "per-step overhead to write (default: the hardware file's measured figure)");
  app->add_option("--backend", o->backend, "auto, cuda or hip")->capture_default_str();
  app->add_option("--device", o->device, "GPU index")->capture_default_str()->check(CLI::Range(0, 65535));
  o->output_flag = app->add_option("--output,-o", o->output, "calibration file to write (atomically)")
                       ->capture_default_str();
  app->add_flag("--json", o->json, "print the result as JSON (kvbench/calibrate/v1) instead of text");
  app->add_option(
         "--from-vllm", o->from_vllm,
         "no GPU needed: fit to a real vLLM server's per-request results, the format detected by content "
         "(vllm bench serve --save-result --save-detailed JSON, AIPerf's profile_export.jsonl, GuideLLM's "
         "benchmarks.json, or a CSV with send_us, server_input_tokens, output_tokens, ttft_us, e2e_us); "
         "repeatable")
      ->take_all();
  app->add_option("--num-gpu-blocks", o->num_gpu_blocks,
                  "--from-vllm: the GPU KV blocks vLLM logged (default: kvbench's estimate)");
  app->add_option("--start", o->start,
                  "--from-vllm: a calibration file to start the fit from (default: the GPU's)");
  return Command{app, [o] { return run_calibrate(*o); }};
}

}  // namespace kvb
