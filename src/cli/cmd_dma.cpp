// `kvbench dma`: GPU<->CPU KV-block copy benchmark; copy-engine DMA vs copy kernels.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend_registry.hpp"
#include "backend/gpu_occupancy.hpp"
#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "dma/dma_json.hpp"
#include "dma/dma_record.hpp"
#include "dma/dma_sweep.hpp"
#include "dma/transfer_backend.hpp"
#include "output/common/occupancy_text.hpp"
#include "output/dma/dma_output.hpp"
#include "output/dma/dma_prometheus.hpp"

namespace kvb {
namespace {

struct DmaOptions {
  std::string backend = "auto";
  std::string device = "0";
  int host_devices = 1;
  bool quick = false;
  DmaSweepSettings sweep;
  std::string min_time = "0.05";
  std::string max_time = "1";
  std::string precision = "0.01";
  int min_samples = 10;
  int warmups = 2;
  std::string seed = "1";  // parsed strictly: CLI11 would saturate an out-of-range value
  OutputFlags out;
  bool csv = false;
};

// The shared --format/--json/-o (cli/output_flags) plus dma's own --csv.
OutputFormat parse_format(const DmaOptions& o) {
  if (o.out.json && o.csv) throw UsageError("--json and --csv: expected one of them (or --format json|csv)");
  auto flags = o.out;
  if (o.csv) {
    if (flags.format != "table" && flags.format != "csv") {
      throw UsageError(fmt::format("--csv and --format {}: expected one of them", flags.format));
    }
    flags.format = "csv";
  }
  return chosen_format(flags);
}

// What a sweep printed: its records, the first device's facts for the header, how many devices, and
// the case a signal cut short ("" when the sweep ran to its end).
struct DmaAnswer {
  const std::vector<DmaRecord>& records;
  DeviceInfo first;
  std::size_t devices = 1;
  std::string interrupted_during;
};

std::string dma_json_text(const DmaAnswer& a) {
  auto doc = dma_json(a.records);
  if (!a.interrupted_during.empty()) {
    doc["interrupted"] = true;
    doc["interrupted_during"] = a.interrupted_during;
  }
  return json_text(doc, 1);
}

// dma's printers: the table with vLLM's summary, kvbench/dma/v1, CSV, Prometheus text.
const Printers<DmaAnswer> kDmaPrinters{
    {OutputFormat::kTable,
     [](const DmaAnswer& a) {
       return dma_header(a.first, a.records, a.devices) + dma_table(a.records) + dma_vllm_summary(a.records);
     }},
    {OutputFormat::kJson, dma_json_text},
    {OutputFormat::kCsv, [](const DmaAnswer& a) { return dma_csv(a.records); }},
    {OutputFormat::kProm, [](const DmaAnswer& a) { return dma_prometheus(a.records); }}};

// The case a signal stopped: the first planned case without a record on every device.
std::string interrupted_case(const std::vector<TransferCase>& cases, std::size_t records,
                             std::size_t devices) {
  if (!interrupt_requested()) return "";
  const std::size_t next = records / std::max<std::size_t>(1, devices);
  const auto during = next < cases.size() ? cases[next].id() : std::string("the end of the sweep");
  std::fprintf(stderr, "kvbench: %s during %s: the %zu finished case%s written\n",
               interrupt_signal_name().c_str(), during.c_str(), next, next == 1 ? " is" : "s are");
  return during;
}

// The timed settings: --quick's, then any flag the user gave explicitly over them.
void apply_timing(DmaOptions& o, const CLI::App& app) {
  auto& rule = o.sweep.rule;
  const auto given = [&](const char* flag) { return app.count(flag) > 0; };
  if (o.quick) {
    if (given("--block"))
      throw UsageError("--quick and --block: expected one of them (--quick picks 4KiB,64KiB,2MiB)");
    apply_quick(o.sweep);
  }
  if (!o.quick || given("--min-time")) rule.min_seconds = parse_plain_real(o.min_time, "--min-time");
  if (!o.quick || given("--max-time")) rule.max_seconds = parse_plain_real(o.max_time, "--max-time");
  if (!o.quick || given("--precision")) rule.precision = parse_plain_real(o.precision, "--precision");
  if (!o.quick || given("--warmups")) rule.warmups = o.warmups;
  rule.min_samples = o.min_samples < 1 ? 0 : static_cast<std::size_t>(o.min_samples);
  validate_stopping_rule(rule);
}

// --host-devices emulates several devices on the host backend only.
void check_host_devices(const DmaOptions& o, BackendKind kind) {
  if (o.host_devices < 1 || o.host_devices > 64) {
    throw UsageError(fmt::format("--host-devices {}: expected 1 to 64 emulated devices", o.host_devices));
  }
  if (o.host_devices > 1 && kind != BackendKind::kHost) {
    throw UsageError(
        "--host-devices: expected --backend host (it emulates several devices on the host backend)");
  }
}

int run_dma(DmaOptions o, const CLI::App& app) {
  const auto format = parse_format(o);
  o.sweep.seed = static_cast<std::uint64_t>(parse_positive_int(o.seed, "--seed", true, INT64_MAX));
  const auto kind = parse_backend(o.backend);
  apply_timing(o, app);
  const auto& rule = o.sweep.rule;
  check_host_devices(o, kind);
  // Plan (and so validate) before touching any device.
  std::vector<BlocksReduced> notes;
  (void)plan_dma_cases(o.sweep, kind != BackendKind::kHost, notes);
  const int count = kind == BackendKind::kHost ? o.host_devices : device_count(kind);
  const auto indices = parse_device_list(o.device, count);
  std::string notice;
  std::vector<std::unique_ptr<TransferBackend>> owned;
  std::vector<TransferBackend*> backends;
  for (const int d : indices) {
    owned.push_back(make_backend(kind, d, notice));
    backends.push_back(owned.back().get());
  }
  if (!notice.empty()) std::fprintf(stderr, "kvbench: notice: %s\n", notice.c_str());
  // Other processes on a GPU share its copy engines and link: named before anything is measured.
  std::vector<DeviceInfo> devices;
  for (auto* b : backends) {
    record_occupancy(*b);
    devices.push_back(b->info());
  }
  for (const auto& w : occupancy_warnings(devices)) print_warning(w);
  notes.clear();
  const bool host = backend_kind_of(backends.front()->info()) == BackendKind::kHost;
  const auto cases = plan_dma_cases(o.sweep, !host, notes);
  for (const auto& n : notes) std::fprintf(stderr, "kvbench: note: %s\n", blocks_reduced_text(n).c_str());
  check_host_memory(cases, backends.size(), host, host_memory_available());

  // Progress from the first case: a sweep is tens of cases.
  const auto progress = [&](std::size_t i, std::size_t total, const std::string& id) {
    std::fprintf(stderr, "kvbench: [%zu/%zu] %s\n", i + 1, total, id.c_str());
  };
  const auto start = std::chrono::steady_clock::now();
  const auto records = run_dma_cases_concurrently(backends, cases, rule, progress);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "kvbench: %s\n", dma_cost_summary(records, elapsed).c_str());

  const auto during = interrupted_case(cases, records.size(), backends.size());
  emit_result(o.out, format, kDmaPrinters,
              DmaAnswer{records, backends.front()->info(), indices.size(), during});
  require_verified(records);
  return kExitOk;  // main turns a signal into 130/143
}

}  // namespace

Command register_dma(CLI::App& parent) {
  auto o = std::make_shared<DmaOptions>();
  auto& sw = o->sweep;
  auto* app =
      parent.add_subcommand("dma", "GPU<->CPU KV-block copy benchmark: copy-engine DMA vs copy kernels");
  app->add_option("--backend", o->backend, "auto, cuda, hip or host")->capture_default_str();
  app->add_option("--device", o->device, "GPU index, a comma list (0,2,5) or all: the devices copy at once")
      ->capture_default_str();
  app->add_option("--host-devices", o->host_devices,
                  "host backend: emulated devices for --device all (testing)")
      ->capture_default_str();
  app->add_flag("--quick", o->quick,
                "a ~10 s overview: 4KiB,64KiB,2MiB, median to +-2%, 0.25 s per case at most");
  app->add_option("--block", sw.block, "block sizes: 4KB,16KB,2MiB or a power-of-two range 4KiB..64MiB")
      ->capture_default_str();
  app->add_option("--blocks", sw.blocks,
                  "blocks per transfer (default 1000, or a quarter of the pool if fewer)");
  app->add_option("--method", sw.method, "ce, ce-batch, kernel (comma list)")->capture_default_str();
  app->add_option("--direction", sw.direction, "h2d, d2h, bidir (comma list)")->capture_default_str();
  app->add_option("--layout", sw.layout, "contiguous (vLLM >= 0.12) or per-layer (before 0.12)")
      ->capture_default_str();
  app->add_option("--layers", sw.layers, "fragments per block for --layout per-layer")->capture_default_str();
  app->add_option("--host-mem", sw.host_mem, "pinned, pageable or write-combined")->capture_default_str();
  app->add_option("--numa-node", sw.numa_node,
                  "NUMA node for the host pools (default: the GPU's node from sysfs; host backend: unbound)")
      ->check(CLI::Range(0, 4095));
  app->add_option("--ctas", sw.ctas,
                  "kernel method: CTAs (GPU) or threads (host), a comma list such as 4,8,16,32; 0 = all")
      ->capture_default_str();
  app->add_option("--pool", sw.pool,
                  "bytes per pool (default 2GiB on a GPU, 256MiB on the host backend); a case has a source "
                  "and a destination pool on each side");
  app->add_option("--seed", o->seed, "block-map seed (0 or more)")->capture_default_str();
  app->add_flag(
      "--with-compute", sw.with_compute,
      "run a compute-bound load beside the copies and report its slowdown (GPU: an FMA kernel on every SM)");
  app->add_option("--min-time", o->min_time, "seconds of timed work at least")->capture_default_str();
  app->add_option(
         "--max-time", o->max_time,
         "seconds per case at most: set-up, warm-ups and timed runs (pools, built once per run, apart)")
      ->capture_default_str();
  app->add_option("--precision", o->precision,
                  "stop once the median's 95% confidence interval is within +-this fraction of it")
      ->capture_default_str();
  app->add_option("--min-samples", o->min_samples, "timed transfers at least")->capture_default_str();
  app->add_option("--warmups", o->warmups, "untimed transfers first")->capture_default_str();
  add_output_flags(app, o->out, formats_of(kDmaPrinters), "kvbench/dma/v1; prom: Prometheus text");
  app->add_flag("--csv", o->csv, "same as --format csv");
  return Command{app, [o, app] { return run_dma(*o, *app); }};
}

}  // namespace kvb
