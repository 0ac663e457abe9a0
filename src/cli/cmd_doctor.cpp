// `kvbench doctor`: is this node ready for a CPU KV tier? Host checks read /proc and /sys; the
// pinning test and (on a GPU) the host link at 2 MiB are measured here.
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
#include "core/numa_binding.hpp"
#include "core/units.hpp"
#include "dma/dma_sweep.hpp"
#include "doctor/doctor_json.hpp"
#include "doctor/host_pinning.hpp"
#include "doctor/node_facts.hpp"
#include "output/doctor_output.hpp"
#include "size/serve_settings.hpp"

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
};

// The host link measured at vLLM's 2 MiB block, each direction against 85% of the figure kvbench
// measured on that GPU model (the hardware file), as a floor.
std::vector<DmaRecord> measure_2mib(TransferBackend& backend, const std::string& direction, int numa_node) {
  DmaSweepSettings s;
  s.block = "2MiB";
  s.method = "ce";
  s.direction = direction;
  s.numa_node = numa_node;
  s.rule.max_seconds = 1.0;
  std::vector<std::string> notes;
  return run_dma_cases(backend, plan_dma_cases(s, true, notes), s.rule);
}

std::string gpu_label(const TransferBackend& backend) {
  return fmt::format("GPU {} ({})", backend.info().index, backend.info().name);
}

std::vector<CheckResult> measure_link(TransferBackend& backend) {
  const auto records = measure_2mib(backend, "h2d,d2h", -1);
  const auto hw_name = hardware_for_device_name(backend.info().name);
  std::vector<CheckResult> out;
  for (const auto& r : records) {
    CheckResult c;
    c.name = fmt::format("link measured {} GPU {}", to_string(r.tcase.direction), backend.info().index);
    c.unit = "GB/s";
    c.value = r.median_gbps;
    if (r.waived || !r.verified) {
      c.status = CheckStatus::kSkip;
      c.detail = r.waived ? r.waive_reason : "the copy did not verify";
      out.push_back(c);
      continue;
    }
    // The link as the runtime and sysfs see it: PCIe generation and width, or NVLink-C2C on Grace.
    c.detail = fmt::format("{:.1f} GB/s at 2 MiB blocks ({}MemcpyAsync per block) on {} over {}",
                           r.median_gbps, backend.info().backend, backend.info().name, backend.info().link);
    if (hw_name.empty()) {
      c.status = CheckStatus::kPass;
      c.source = "no floor for this GPU model (not in the hardware table)";
    } else {
      const auto hw = resolve_hardware(hw_name);
      const double reference =
          r.tcase.direction == Direction::kD2H && hw.measured_link.d2h_gbps > 0
              ? hw.measured_link.d2h_gbps
              : (hw.measured_link.h2d_gbps > 0 ? hw.measured_link.h2d_gbps : hw.link_practical_gbps);
      c.threshold = 0.85 * reference;
      c.source = fmt::format("85% of {:.1f} GB/s, the {} figure in scenarios/hardware/{}.yaml", reference,
                             hw.measured_link.source.empty() ? "practical (soft)" : "measured", hw.name);
      c.status = r.median_gbps >= *c.threshold ? CheckStatus::kPass : CheckStatus::kFail;
      if (c.status == CheckStatus::kFail)
        c.detail += fmt::format(": below the {:.1f} GB/s floor", *c.threshold);
    }
    out.push_back(c);
  }
  return out;
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
  const auto runtime = first->info().backend == "hip" ? BackendKind::kHip : BackendKind::kCuda;
  for (const int index : parse_device_list(o.device, device_count(runtime))) {
    out.backends.push_back(index == 0 ? std::move(first) : make_backend(runtime, index, notice));
  }
  return out;
}

// Where the node has several NUMA nodes and the GPU's is known: h2d at 2 MiB from the GPU's node
// and from the next one.
std::optional<NumaMeasurement> measure_numa(TransferBackend& backend, const NodeFacts& facts) {
  const int local = backend.info().numa_node;
  if (facts.numa_nodes < 2 || local < 0 || !numa_supported()) return std::nullopt;
  NumaMeasurement m;
  m.device = gpu_label(backend);
  m.local_node = local;
  m.remote_node = (local + 1) % facts.numa_nodes;
  const auto near = measure_2mib(backend, "h2d", m.local_node);
  const auto far = measure_2mib(backend, "h2d", m.remote_node);
  if (near.empty() || far.empty() || near[0].waived || far[0].waived) return std::nullopt;
  // Pages that did not land where asked (a full node, a policy that would not bind) compare nothing.
  const auto landed = [](const DmaRecord& r, int node) {
    return r.host_numa_node < 0 || r.host_numa_node == node;
  };
  if (!landed(near[0], m.local_node) || !landed(far[0], m.remote_node)) return std::nullopt;
  m.local_gbps = near[0].median_gbps;
  m.remote_gbps = far[0].median_gbps;
  return m;
}

int run_doctor(const DoctorOptions& o) {
  const double tier_gib = parse_real_in(o.tier_size, "--tier-size", 0, kMaxTierGib, "64");
  if (tier_gib * kGiB < kMiB) {  // smaller than one 2 MiB block: no tier, and "0.0 GiB fits" says nothing
    throw UsageError(
        fmt::format("--tier-size: '{}' GiB is below 1 MiB; expected a tier of GiB, e.g. 64", o.tier_size));
  }
  const auto version = parse_vllm_version(o.vllm_version, "--vllm-version");
  const auto ranks = static_cast<int>(parse_positive_int(o.tp, "--tp", false, kMaxParallelRanks));
  (void)parse_backend(o.backend);  // refused with the accepted names even where --root measures nothing
  const auto format = chosen_format(o.out, {"table", "json", "prom"});
  (void)parse_device_list(o.device, 1 << 16);  // the syntax, before anything is measured
  const bool this_node = o.root == "/";
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
  std::vector<CheckResult> measured;
  if (this_node) {
    auto gpus = open_gpus(o);
    if (gpus.backends.empty()) {
      request.gpu_skip_reason = gpus.skip_reason;
    } else {
      for (auto& b : gpus.backends) {
        std::vector<std::string> shared;  // worded by the busy check
        record_occupancy(*b, shared);
        request.gpus.push_back(b->info());
      }
      for (auto& b : gpus.backends) {
        const auto link = measure_link(*b);
        measured.insert(measured.end(), link.begin(), link.end());
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
  auto checks = run_node_checks(facts, request);
  checks.insert(checks.begin() + 1, measured.begin(), measured.end());
  const auto host = this_node ? host_name() : o.root;
  const auto json_text = doctor_json(checks, host, request, facts).dump(1) + "\n";
  const auto text = format == "json"   ? json_text
                    : format == "prom" ? doctor_prometheus(checks, host)
                                       : doctor_table(checks, host, request, facts);
  emit(o.out, text, format == "table" ? json_text : text);
  return doctor_exit_code(checks);
}

}  // namespace

Command register_doctor(CLI::App& parent) {
  auto o = std::make_shared<DoctorOptions>();
  auto* app =
      parent.add_subcommand("doctor",
                            "is this node ready for a CPU KV tier: /dev/shm, memlock, memory, "
                            "pinning time, PCIe link, NUMA, IOMMU, huge pages (exit 1 when a check fails)");
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
  add_output_flags(app, o->out, {"table", "json", "prom"}, "kvbench/doctor/v1; prom: node-exporter textfile");
  app->add_option("--backend", o->backend, "GPU runtime for the link measurement: auto, cuda, hip, host")
      ->capture_default_str();
  app->add_option("--device", o->device, "GPUs whose link is measured: all, or a comma list of indices")
      ->capture_default_str();
  app->add_option("--root", o->root,
                  "read /proc and /sys under this directory (a recorded node; measures nothing)")
      ->capture_default_str();
  return Command{app, [o] { return run_doctor(*o); }};
}

}  // namespace kvb
