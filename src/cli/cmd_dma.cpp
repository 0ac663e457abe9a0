// `kvbench dma`: GPU<->CPU KV-block copy benchmark; copy-engine DMA vs copy kernels.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "backend/transfer_backend.hpp"
#include "cli/command.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "dma/dma_record.hpp"
#include "dma/dma_sweep.hpp"
#include "output/dma_output.hpp"
#include "output/dma_prometheus.hpp"

namespace kvb {
namespace {

struct DmaOptions {
  std::string backend = "auto";
  int device = 0;
  DmaSweepSettings sweep;
  double min_time = 0.5;
  double max_time = 15.0;
  double noise = 0.005;
  int min_samples = 10;
  int warmups = 4;
  std::string seed = "1";  // parsed strictly: CLI11 would saturate an out-of-range value
  std::string format = "table";
  bool json = false;
  bool csv = false;
  std::string output;
};

enum class DmaFormat { kTable, kJson, kCsv, kProm };

DmaFormat parse_format(const DmaOptions& o) {
  if (o.json && o.csv) throw UsageError("--json and --csv: expected one of them (or --format json|csv)");
  if (o.json) return DmaFormat::kJson;
  if (o.csv) return DmaFormat::kCsv;
  if (o.format == "table") return DmaFormat::kTable;
  if (o.format == "json") return DmaFormat::kJson;
  if (o.format == "csv") return DmaFormat::kCsv;
  if (o.format == "prom") return DmaFormat::kProm;
  throw UsageError(fmt::format("--format '{}': expected table, json, csv or prom", o.format));
}

std::string render(DmaFormat f, const std::vector<DmaRecord>& records) {
  switch (f) {
    case DmaFormat::kCsv: return dma_csv(records);
    case DmaFormat::kProm: return dma_prometheus(records);
    case DmaFormat::kTable:
    case DmaFormat::kJson: break;
  }
  return dma_json(records).dump(1) + "\n";
}

int run_dma(DmaOptions o) {
  const auto format = parse_format(o);
  if (!o.output.empty()) require_writable_output(o.output);
  o.sweep.seed = static_cast<std::uint64_t>(parse_positive_int(o.seed, "--seed", true));
  const auto kind = parse_backend(o.backend);
  auto& rule = o.sweep.rule;
  rule.min_seconds = o.min_time;
  rule.max_seconds = o.max_time;
  rule.target_noise = o.noise;
  rule.min_samples = o.min_samples < 1 ? 0 : static_cast<std::size_t>(o.min_samples);
  rule.warmups = o.warmups;
  validate_stopping_rule(rule);
  // Plan (and so validate) before touching any device.
  std::vector<std::string> notes;
  (void)plan_dma_cases(o.sweep, kind != BackendKind::kHost, notes);
  std::string notice;
  auto backend = make_backend(kind, o.device, notice);
  if (!notice.empty()) std::fprintf(stderr, "kvbench: notice: %s\n", notice.c_str());
  notes.clear();
  const auto cases = plan_dma_cases(o.sweep, backend->info().backend != "host", notes);
  for (const auto& n : notes) std::fprintf(stderr, "kvbench: note: %s\n", n.c_str());

  const auto start = std::chrono::steady_clock::now();
  const auto progress = [&](std::size_t i, std::size_t total, const std::string& id) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > 2.0) std::fprintf(stderr, "kvbench: [%zu/%zu] %s\n", i + 1, total, id.c_str());
  };
  const auto records = run_dma_cases(*backend, cases, rule, progress);

  // -o writes the machine-readable form: the chosen one, JSON for a table.
  if (!o.output.empty()) write_file_atomically(o.output, render(format, records));
  if (format != DmaFormat::kTable) {
    std::fputs(render(format, records).c_str(), stdout);
  } else {
    const auto& d = backend->info();
    std::printf("kvbench dma: %s backend, %s (driver %s, runtime %s)\n", d.backend.c_str(), d.name.c_str(),
                d.driver_version.c_str(), d.runtime_version.c_str());
    std::printf("link: %s; timing: %s; host CPU: %s\n", d.link.c_str(), d.timing.c_str(),
                records.empty() ? "" : records.front().host_cpu.c_str());
    std::printf("Measured. GB/s = 10^9 B/s over the median sample; bidir = sum of both directions (h2d+d2h each "
                "over its own span); * = noise target not met before the time cap.\n");
    std::fputs(dma_table(records).c_str(), stdout);
  }
  require_verified(records);
  return kExitOk;
}

}  // namespace

Command register_dma(CLI::App& parent) {
  auto o = std::make_shared<DmaOptions>();
  auto& sw = o->sweep;
  auto* app = parent.add_subcommand("dma", "GPU<->CPU KV-block copy benchmark: copy-engine DMA vs copy kernels");
  app->add_option("--backend", o->backend, "auto, cuda, hip or host")->capture_default_str();
  app->add_option("--device", o->device, "GPU index")->capture_default_str()->check(CLI::Range(0, 1023));
  app->add_option("--block", sw.block, "block sizes: 4KB,16KB,2MiB or a power-of-two range 4KiB..64MiB")
      ->capture_default_str();
  app->add_option("--blocks", sw.blocks, "blocks per transfer (default 1000, fewer if the pool is smaller)");
  app->add_option("--method", sw.method, "ce, ce-batch, kernel (comma list)")->capture_default_str();
  app->add_option("--direction", sw.direction, "h2d, d2h, bidir (comma list)")->capture_default_str();
  app->add_option("--layout", sw.layout, "contiguous (vLLM >= 0.12) or per-layer (before 0.12)")->capture_default_str();
  app->add_option("--layers", sw.layers, "fragments per block for --layout per-layer")->capture_default_str();
  app->add_option("--host-mem", sw.host_mem, "pinned, pageable or write-combined")->capture_default_str();
  app->add_option("--numa-node", sw.numa_node, "NUMA node for the host pools (default: the GPU's node from sysfs; host backend: unbound)")
      ->check(CLI::Range(0, 4095));
  app->add_option("--ctas", sw.ctas, "kernel method: CTAs (GPU) or threads (host); 0 = all")->capture_default_str();
  app->add_option("--pool", sw.pool, "bytes per pool (default 8GiB on a GPU, 256MiB on the host backend); a GPU case has a source and a destination pool on each side");
  app->add_option("--seed", o->seed, "block-map seed (0 or more)")->capture_default_str();
  app->add_flag("--with-compute", sw.with_compute,
                "run a compute-bound load beside the copies and report its slowdown (GPU: an FMA kernel on every SM)");
  app->add_option("--min-time", o->min_time, "seconds of timed work at least")->capture_default_str();
  app->add_option("--max-time", o->max_time, "seconds per case at most")->capture_default_str();
  app->add_option("--noise", o->noise, "target relative noise (stddev/mean)")->capture_default_str();
  app->add_option("--min-samples", o->min_samples, "timed transfers at least")->capture_default_str();
  app->add_option("--warmups", o->warmups, "untimed transfers first")->capture_default_str();
  app->add_option("--format", o->format, "table, json (schema kvbench/dma/v1), csv, or prom (Prometheus text)")
      ->capture_default_str();
  app->add_flag("--json", o->json, "same as --format json");
  app->add_flag("--csv", o->csv, "same as --format csv");
  app->add_option("--output,-o", o->output,
                  "also write the results to this file, atomically: JSON, or CSV / Prometheus text with that format");
  return Command{app, [o] { return run_dma(*o); }};
}

}  // namespace kvb
