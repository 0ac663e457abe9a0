// `kvbench trace FILE --model M`: a recorded request trace's statistics and the miss-ratio curve of
// a prefix cache over it, in GiB of the model's KV cache.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
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
#include "output/trace/trace_text.hpp"
#include "sim/simulation_setup.hpp"
#include "size/sizing_engine.hpp"
#include "size/sizing_inputs.hpp"
#include "trace/tier_levels.hpp"
#include "trace/trace_analysis.hpp"
#include "trace/trace_json.hpp"
#include "trace/trace_jsonl.hpp"

namespace kvb {
namespace {

struct TraceCommandOptions {
  TraceFlags trace;
  ServerFlags server;  // --model, --hw and the flags that size the GPU pool (cli/server_flags)
  FleetFlags fleet;    // --replicas, --router: the trace split as a fleet's router would
  OutputFlags out;
  std::string write_jsonl;          // --write-jsonl: the requests read, as kvbench JSONL
  std::string secondary_tier_size;  // --secondary-tier-size GiB|unbounded: the two-level curve
};

// The model's server as size's engine sees it: a token's KV bytes, across all ranks, and the
// tokens its GPU pool holds (0 where the weights leave none).
struct TraceServer {
  TraceKvCost cost;
  std::int64_t gpu_pool_tokens = 0;
  double exceeds_gpu_gib = 0;  // --kv-cache-memory beyond what the GPU holds beside the rest (size's warning)
};

TraceServer trace_server(const TraceCommandOptions& o) {
  if (o.server.model.empty())
    throw UsageError("--model is required: the KV bytes per token turn blocks into GiB");
  std::vector<std::string> warnings;
  ServeSettings serve;
  serve.tensor_parallel_auto = !parallelism_given(o.server);  // as size
  apply_server_flags(o.server, serve);
  const auto sizing = compute_sizing(
      make_sizing_inputs(resolve_model(o.server.model, warnings), resolve_hardware(o.server.hw), serve));
  TraceServer server{{sizing.server, 0}, 0, sizing.budget.exceeds_gpu_gib};
  server.cost.kv_bytes_per_token =
      sizing.offload ? static_cast<double>(sizing.offload->cpu_block_bytes) / sizing.layout.block_size
                     : static_cast<double>(sizing.layout.kv_bytes_per_token() * sizing.server.world_size());
  // The pool as size's floor counts it (size/offload_plan): the tier in front of the CPU tier.
  if (sizing.weights_fit) {
    server.gpu_pool_tokens =
        sizing.layout.uniform ? sizing.num_gpu_blocks * sizing.layout.block_size : sizing.gpu_kv_tokens;
  }
  return server;
}

// --secondary-tier-size: the GPU pool and the secondary tier in the trace's blocks, refused (one
// line, exit 2) before the pass where no curve of one engine's tiers can be read.
std::optional<TierLevels> tier_levels(const TraceCommandOptions& o, const TraceServer& server,
                                      const TraceOptions& options, int replicas) {
  const auto& text = o.secondary_tier_size;
  if (text.empty()) return std::nullopt;
  if (replicas > 1) {
    throw UsageError(
        "--secondary-tier-size with --replicas: the two-level curve is one engine's tiers; expected one "
        "engine (leave out --replicas)");
  }
  if (server.gpu_pool_tokens <= 0) {
    throw UsageError(fmt::format(
        "--secondary-tier-size: {} leaves no GPU KV pool on {} at TP {}; expected a server the model fits "
        "(--tp, --hw, --kv-cache-memory)",
        server.cost.server.model, server.cost.server.hardware, server.cost.server.tensor_parallel_size));
  }
  if (server.exceeds_gpu_gib > 0) {  // a pool no GPU holds would read the curve at a wrong GPU size
    throw UsageError(
        fmt::format("--secondary-tier-size: --kv-cache-memory is {:.2f} GiB more than {} holds beside the "
                    "weights, activations and graphs; "
                    "expected a KV cache memory that fits the GPU",
                    server.exceeds_gpu_gib, server.cost.server.hardware));
  }
  TierLevels levels{server.gpu_pool_tokens / options.block_tokens, std::nullopt};
  if (text == "unbounded") return levels;  // vLLM's file-system tier: no bound before RFC #54779
  double gib = 0;
  try {
    gib = parse_gib_size(text, "--secondary-tier-size");
  } catch (const UsageError&) {
    throw UsageError(fmt::format(
        "--secondary-tier-size: '{}' is not a size in GiB; expected a number of GiB from 0 to 1000000, "
        "or unbounded",
        text));
  }
  const double block = static_cast<double>(options.block_tokens) * server.cost.kv_bytes_per_token / kGiB;
  if (!(block > 0)) return levels;  // a model with no KV bytes a token: any size holds every block
  const double blocks = std::floor(std::min(gib / block, 1e15));  // well inside a 64-bit count
  if (blocks < 1) {
    throw UsageError(fmt::format(
        "--secondary-tier-size: {} GiB holds no block of the trace ({} tokens, {:.4g} GiB); expected at "
        "least {:.4g} GiB, or unbounded",
        text, options.block_tokens, block, block));
  }
  levels.secondary_blocks = static_cast<std::int64_t>(blocks);
  return levels;
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
  const auto server = trace_server(o);
  const auto format = chosen_format(o.out);
  const auto fleet = fleet_from_flags(o.fleet);
  const auto levels = tier_levels(o, server, options, fleet.replicas);
  note_sample_over_fleet(options, fleet.replicas);
  if (!o.write_jsonl.empty()) require_writable_output(o.write_jsonl);
  TraceJsonlWriter jsonl;
  const auto each = [&](const TraceRequest& r) { jsonl.add(r); };
  auto analysis =
      analyze_trace(o.trace.file, options, 48, fleet, o.write_jsonl.empty() ? nullptr : std::function(each));
  if (!o.write_jsonl.empty()) write_converted(o.write_jsonl, analysis, jsonl);
  // The candidate CPU-tier sizes are the one-level curve's capacities, read off the same pass.
  if (levels && analysis.reuse_recorded)
    analysis.two_level = two_level_curve(analysis.hits, *levels, analysis.curve);
  emit_result(o.out, format, kTracePrinters, TraceDocument{analysis, server.cost});
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
  // What changes a token's KV bytes and the GPU pool in front of the tiers; not the tiers' own flags
  // (--kv-offloading-size: the curve gives the candidates; --secondary-tier-size is trace's own, below).
  add_server_flags(app, o->server,
                   ServerFlagSet(ModelUse::kOneModel, Parallelism::kIncluded, FieldScope::kPoolOnly));
  add_trace_reading_flags(app, o->trace);
  add_fleet_flags(app, o->fleet);
  app->add_option(
      "--write-jsonl", o->write_jsonl,
      "also write the requests read (after --trace-sample, --trace-limit, --trace-speed) as kvbench "
      "JSONL with hash_ids: a vLLM request log converted, so the log (which holds the prompts) can go");
  app->add_option("--secondary-tier-size", o->secondary_tier_size,
                  "GiB (all ranks) or unbounded: also the two-level curve, the share of prompt tokens the "
                  "GPU pool, the CPU tier and a secondary tier this large behind it serve at each CPU-tier "
                  "size (vLLM's tiering, docs/trace.md)");
  add_output_flags(app, o->out, formats_of(kTracePrinters), kTraceSchema);
  return Command{app, [o] { return run_trace(*o); }};
}

}  // namespace kvb
