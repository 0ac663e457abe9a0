// `kvbench trace FILE --model M`: a recorded request trace's statistics and the miss-ratio curve of
// a prefix cache over it, in GiB of the model's KV cache.
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "cli/command.hpp"
#include "cli/fleet_flags.hpp"
#include "cli/output_flags.hpp"
#include "cli/server_flags.hpp"
#include "cli/trace_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "output/trace_text.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_json.hpp"
#include "trace/trace_jsonl.hpp"

namespace kvb {
namespace {

struct TraceCommandOptions {
  TraceFlags trace;
  std::string model;
  std::string hw = "h100";
  ServerFlags server;  // --tp and --pp (cli/server_flags)
  FleetFlags fleet;    // --replicas, --router: the trace split as a fleet's router would
  OutputFlags out;
  std::string write_jsonl;  // --write-jsonl: the requests read, as kvbench JSONL
};

// The KV bytes a token of the trace costs on the model's server, across all ranks.
TraceKvCost kv_cost(const TraceCommandOptions& o) {
  if (o.model.empty()) throw UsageError("--model is required: the KV bytes per token turn blocks into GiB");
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.tensor_parallel_auto =
      o.server.text("tensor-parallel-size").empty() && !pp_given(o.server);  // as size
  apply_server_flags(o.server, serve);
  const auto sizing =
      compute_sizing(make_sizing_inputs(resolve_model(o.model, warnings), resolve_hardware(o.hw), serve));
  TraceKvCost cost{sizing.model_name, sizing.hw_name, sizing.tp, 0};
  cost.kv_bytes_per_token =
      sizing.offload ? static_cast<double>(sizing.offload->cpu_block_bytes) / sizing.layout.block_size
                     : static_cast<double>(sizing.layout.kv_bytes_per_token() * sizing.world_size);
  return cost;
}

// --write-jsonl: the requests as read, for a trace that records reuse (a format that records none is
// already a file kvbench reads, and as hash ids it would say that no prompt shares a prefix).
void write_converted(const std::string& path, const TraceAnalysis& a, const TraceJsonlWriter& jsonl) {
  if (!a.reuse_recorded) {
    throw UsageError(fmt::format(
        "--write-jsonl: the trace is {}; expected one that records reuse (a vLLM request log, Mooncake or "
        "kvbench JSONL): this one is read as it is",
        to_string(a.format)));
  }
  if (a.interrupted) {
    std::fputs("kvbench: --write-jsonl: not written (interrupted: the trace was not read to its end)\n",
               stderr);
    return;
  }
  write_file_atomically(path, jsonl.text());
}

// trace's printers: the table for people, kvbench/trace/v1.
const Printers<TraceDocument> kTracePrinters{
    {OutputFormat::kTable, [](const TraceDocument& d) { return trace_text(d.analysis, d.cost); }},
    {OutputFormat::kJson,
     [](const TraceDocument& d) { return json_text(trace_json(d.analysis, d.cost), 1); }}};

int run_trace(const TraceCommandOptions& o) {
  const auto options = parse_trace_options(o.trace);
  note_input_file(o.trace.file);  // -o naming the trace is refused before the pass, not after it
  const auto cost = kv_cost(o);
  const auto format = chosen_format(o.out);
  const auto fleet = fleet_from_flags(o.fleet);
  note_sample_over_fleet(options, fleet.replicas);
  if (!o.write_jsonl.empty()) require_writable_output(o.write_jsonl);
  TraceJsonlWriter jsonl;
  const auto each = [&](const TraceRequest& r) { jsonl.add(r); };
  const auto analysis =
      analyze_trace(o.trace.file, options, 48, fleet, o.write_jsonl.empty() ? nullptr : std::function(each));
  if (!o.write_jsonl.empty()) write_converted(o.write_jsonl, analysis, jsonl);
  emit_result(o.out, format, kTracePrinters, TraceDocument{analysis, cost});
  return kExitOk;
}

}  // namespace

Command register_trace(CLI::App& parent) {
  auto o = std::make_shared<TraceCommandOptions>();
  auto* app = parent.add_subcommand(
      "trace",
      "a request trace's statistics and the miss-ratio curve of a prefix cache "
      "over it (Mooncake JSONL, kvbench JSONL, CSV, AIPerf, GuideLLM or a vLLM request log)");
  app->add_option("file", o->trace.file, "the trace: one request per line")->required();
  app->add_option("--model,-m", o->model,
                  "model whose KV bytes per token size the curve (catalog name or config.json)");
  app->add_option("--hw", o->hw, "hardware (sets TP when --tp is not given)")->capture_default_str();
  add_parallelism_flags(app, o->server);
  add_trace_reading_flags(app, o->trace);
  add_fleet_flags(app, o->fleet);
  app->add_option(
      "--write-jsonl", o->write_jsonl,
      "also write the requests read (after --trace-sample, --trace-limit, --trace-speed) as kvbench "
      "JSONL with hash_ids: a vLLM request log converted, so the log (which holds the prompts) can go");
  add_output_flags(app, o->out, formats_of(kTracePrinters), kTraceSchema);
  return Command{app, [o] { return run_trace(*o); }};
}

}  // namespace kvb
