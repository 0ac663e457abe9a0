// `kvbench doctor`: is this node ready for a CPU KV tier? Host checks read /proc and /sys; the
// pinning test and (on a GPU) the host link at 2 MiB are measured through doctor/.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend_registry.hpp"
#include "backend/gpu_occupancy.hpp"
#include "catalog/hardware_spec.hpp"
#include "catalog/vllm_host_memory.hpp"
#include "cli/command.hpp"
#include "cli/output_flags.hpp"
#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/host_info.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "dma/dma_sweep.hpp"
#include "doctor/doctor_json.hpp"
#include "doctor/host_pinning.hpp"
#include "doctor/link_measurement.hpp"
#include "doctor/node_facts.hpp"
#include "doctor/tier_dir_checks.hpp"
#include "output/doctor/doctor_check_text.hpp"
#include "output/doctor/doctor_output.hpp"
#include "server/serve_settings.hpp"

namespace kvb {
namespace {

struct DoctorOptions {
  std::string tier_size = "64";
  OutputFlags out;
  std::string backend = "auto";
  std::string device = "all";
  std::string root = "/";
  std::string vllm_version = to_string(kNewestModelledVllm);
  std::string tp = "1";
  std::string tier_dir, tier_dir_size, tier_dir_needs_gbps;
  bool tier_dir_rate = false;
  // Whether each was given (an empty value is still given, and refused).
  const CLI::Option *tier_dir_flag = nullptr, *tier_dir_size_flag = nullptr, *tier_dir_needs_flag = nullptr;
};

// --tier-dir and its companions: the flags checked before anything is measured; the directory's
// own state (missing, read-only) is a check's finding, not bad input.
std::optional<TierDirRequest> parse_tier_dir(const DoctorOptions& o) {
  const auto given = [](const CLI::Option* flag) { return flag != nullptr && flag->count() > 0; };
  if (!given(o.tier_dir_flag)) {
    for (const auto& [flag, set] : {std::pair{"--tier-dir-size", given(o.tier_dir_size_flag)},
                                    {"--tier-dir-rate", o.tier_dir_rate},
                                    {"--tier-dir-needs-gbps", given(o.tier_dir_needs_flag)}}) {
      if (set)
        throw UsageError(fmt::format("{}: needs --tier-dir DIR (the secondary tier's directory)", flag));
    }
    return std::nullopt;
  }
  if (o.tier_dir.empty())
    throw UsageError("--tier-dir: empty; expected the secondary tier's directory, e.g. /mnt/nvme/kv");
  TierDirRequest r;
  if (given(o.tier_dir_size_flag)) {
    const auto size = parse_bytes(o.tier_dir_size, "--tier-dir-size").bytes;
    if (size == 0) throw UsageError("--tier-dir-size: 0; expected the secondary tier's size, e.g. 500GiB");
    r.size_bytes = static_cast<double>(size);
  }
  if (given(o.tier_dir_needs_flag))
    r.needs_gbps = parse_real_in(o.tier_dir_needs_gbps, "--tier-dir-needs-gbps", 1e-6, 1e4, "2.5");
  r.dir = inspect_tier_dir(o.tier_dir).dir;
  if (o.tier_dir_rate || r.needs_gbps) r.rate = measure_tier_dir_rate(r.dir);
  return r;
}

struct OpenedGpus {
  std::vector<std::unique_ptr<TransferBackend>> backends;
  std::string skip_reason;
};

// The GPUs of --device; none (and why) when no GPU runtime finds one. --backend host measures no
// GPU. An explicit GPU backend without a device is a device error (exit 3), as in dma.
OpenedGpus open_gpus(const DoctorOptions& o) {
  OpenedGpus out;
  const auto kind = parse_backend(o.backend);
  if (kind == BackendKind::kHost) {
    out.skip_reason = "--backend host measures no GPU";
    return out;
  }
  std::string notice;
  auto first = make_backend(kind, 0, notice);  // an explicit GPU backend without a device throws (exit 3)
  if (!notice.empty()) {
    out.skip_reason = notice;
    return out;
  }
  const auto runtime = backend_kind_of(first->info());
  for (const int index : parse_device_list(o.device, device_count(runtime))) {
    out.backends.push_back(index == 0 ? std::move(first) : make_backend(runtime, index, notice));
  }
  return out;
}

// doctor's printers: the table, kvbench/doctor/v1, node-exporter's textfile.
const Printers<DoctorReport> kDoctorPrinters{
    {OutputFormat::kTable, [](const DoctorReport& r) { return doctor_table(r); }},
    {OutputFormat::kJson, [](const DoctorReport& r) { return json_text(doctor_json(r), 1); }},
    {OutputFormat::kProm, [](const DoctorReport& r) { return doctor_prometheus(r); }}};

int run_doctor(const DoctorOptions& o) {
  const double tier_gib = parse_real_in(o.tier_size, "--tier-size", 0, kMaxTierGib, "64");
  if (tier_gib * kGiB < kMiB) {  // smaller than one 2 MiB block: no tier, and "0.0 GiB fits" says nothing
    throw UsageError(
        fmt::format("--tier-size: '{}' GiB is below 1 MiB; expected a tier of GiB, e.g. 64", o.tier_size));
  }
  const auto version = parse_vllm_version(o.vllm_version, "--vllm-version");
  const auto ranks = static_cast<int>(parse_positive_int(o.tp, "--tp", false, kMaxParallelRanks));
  (void)parse_backend(o.backend);  // refused with the accepted names even where --root measures nothing
  const auto format = chosen_format(o.out);
  (void)parse_device_list(o.device, 1 << 16);  // the syntax, before anything is measured
  const bool this_node = o.root == "/";
  auto tier_dir = parse_tier_dir(o);
  const auto facts = read_node_facts(o.root);
  if (!this_node && !facts.malformed.empty()) {
    throw UsageError(
        fmt::format("--root '{}': {}; expected the figures the kernel writes (plain non-negative numbers)",
                    o.root, facts.malformed.front()));
  }
  DoctorRequest request;
  request.tier_bytes = tier_gib * kGiB;
  request.vllm_version = version;
  request.ranks = ranks;
  request.tier_dir = std::move(tier_dir);
  if (this_node) {
    auto gpus = open_gpus(o);
    if (gpus.backends.empty()) {
      request.gpu_skip_reason = gpus.skip_reason;
    } else {
      for (auto& b : gpus.backends) {
        record_occupancy(*b);  // worded by the busy check
        request.gpus.push_back(b->info());
      }
      for (auto& b : gpus.backends) {
        const auto link = measure_link_2mib(*b);
        request.link_records.insert(request.link_records.end(), link.begin(), link.end());
        if (auto m = measure_numa(*b, facts)) request.numa.push_back(*m);
      }
      const std::string shm = facts.shm.mounted ? "/dev/shm" : "/tmp";
      request.pinning = gpus.backends.front()->measure_pinning(static_cast<std::uint64_t>(kGiB), shm);
    }
    if (request.pinning.empty()) {
      const double test = kGiB;
      const bool lock = !facts.memlock_soft_bytes || *facts.memlock_soft_bytes >= test;
      request.pinning.push_back(measure_host_pinning(test, lock));
    }
  } else {
    request.gpu_skip_reason = "--root reads a recorded node; nothing is measured";
  }
  const auto report = doctor_report(worded_checks(run_node_checks(facts, request)),
                                    this_node ? host_name() : printable_path(o.root), request, facts);
  emit_result(o.out, format, kDoctorPrinters, report);
  return doctor_exit_code(report.checks);
}

}  // namespace

Command register_doctor(CLI::App& parent) {
  auto o = std::make_shared<DoctorOptions>();
  auto* app =
      parent.add_subcommand("doctor",
                            "is this node ready for a CPU KV tier: /dev/shm, memlock, memory, "
                            "pinning time, PCIe link, NUMA, IOMMU, huge pages, a secondary tier's directory "
                            "(--tier-dir) (exit 1 when a check fails)");
  app->add_option("--tier-size", o->tier_size, "the CPU tier to check for, GiB across the node's ranks")
      ->capture_default_str();
  app->add_option(
         "--vllm-version", o->vllm_version,
         "the vLLM release the tier is checked for: its host footprint (pinned tensors rounded to powers of "
         "two before 0.27, a /dev/shm region from 0.27) is what must fit; docs/host-memory.md")
      ->capture_default_str();
  app->add_option("--tp", o->tp,
                  "ranks the tier is split across (TP x PP): the pinned-tensor path rounds each share")
      ->capture_default_str();
  add_output_flags(app, o->out, formats_of(kDoctorPrinters),
                   "kvbench/doctor/v1; prom: node-exporter textfile");
  app->add_option("--backend", o->backend, "GPU runtime for the link measurement: auto, cuda, hip, host")
      ->capture_default_str();
  app->add_option("--device", o->device, "GPUs whose link is measured: all, or a comma list of indices")
      ->capture_default_str();
  app->add_option("--root", o->root,
                  "read /proc and /sys under this directory (a recorded node; measures nothing)")
      ->capture_default_str();
  o->tier_dir_flag =
      app->add_option("--tier-dir", o->tier_dir,
                      "a secondary KV tier's directory (as this process sees it, also under --root): "
                      "writable, its file system, free space, O_DIRECT (one probe file)");
  o->tier_dir_size_flag =
      app->add_option("--tier-dir-size", o->tier_dir_size,
                      "the secondary tier's size, e.g. 500GiB: fails when the directory has less free");
  app->add_flag("--tier-dir-rate", o->tier_dir_rate,
                "measure the directory: 64 MiB written and read back as kvbench storage does");
  o->tier_dir_needs_flag =
      app->add_option("--tier-dir-needs-gbps", o->tier_dir_needs_gbps,
                      "the rate the tier needs, GB/s each direction (measures, as --tier-dir-rate)");
  return Command{app, [o] { return run_doctor(*o); }};
}

}  // namespace kvb
