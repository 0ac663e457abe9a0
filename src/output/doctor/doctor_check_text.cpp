#include "output/doctor/doctor_check_text.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "catalog/vllm_releases.hpp"
#include "core/units.hpp"
#include "output/common/occupancy_text.hpp"
#include "output/doctor/tier_dir_check_text.hpp"

namespace kvb {
namespace {

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }

std::string vllm_label(const HostFootprint& f) { return "vLLM " + to_string(f.version); }

CheckWords words(const CheckResult&, const std::monostate&) { return {}; }

CheckWords words(const CheckResult& c, const ShmFinding& f) {
  std::string source =
      "vLLM 0.27+ maps its native CPU tier from /dev/shm and refuses to start when it does not fit "
      "(PR #50358); containers often cap it (Docker's default is 64 MB)";
  if (!f.shm.mounted) return {"/dev/shm is not mounted here", source};
  if (!f.shm.size_known) return {"/dev/shm's size unknown (no size= option and no MemTotal)", source};
  std::string leftovers;
  for (const auto& [name, bytes] : f.shm.large_files) leftovers += fmt::format(" {} ({})", name, gib(bytes));
  const auto left_text =
      leftovers.empty() ? std::string() : "; large files left there (a crashed server's tier?):" + leftovers;
  const auto size_text =
      fmt::format("/dev/shm {}{}, {} free", gib(f.shm.size_bytes),
                  f.shm.size_from_default ? " (tmpfs default: half of RAM)" : "", gib(f.free_bytes));
  const double need = f.tier.dev_shm_bytes;
  if (need <= 0) {
    return {fmt::format("{}: {} keeps the tier in pinned tensors, outside /dev/shm{}", size_text,
                        vllm_label(f.tier), left_text),
            source};
  }
  if (region_pin_fails(f.tier.flag_bytes, f.tier.version)) {
    const auto& fix = release_fact(ReleaseChange::kChunkedRegistration);
    return {fmt::format("{}: {} cannot pin its {} tier region: one cudaHostRegister call of 512 GiB or more "
                        "fails whatever is free, and the workers do not start; {}.{}+ registers it in "
                        "chunks{}",
                        size_text, vllm_label(f.tier), gib(need), fix.from.major, fix.from.minor, left_text),
            fix.source};
  }
  return {fmt::format("{}: {}'s {} tier region {}{}", size_text, vllm_label(f.tier), gib(need),
                      c.status == CheckStatus::kFail ? "does not fit" : "fits", left_text),
          source};
}

CheckWords words(const CheckResult& c, const CgroupFinding& f) {
  std::string source =
      "the memory cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes; a pod's limit in "
      "Kubernetes) less what it already uses must hold the tier's real footprint and the server";
  const auto& g = f.cgroup;
  if (g.version == 0) return {g.problem, source};
  if (!g.limit_bytes)
    return {fmt::format("cgroup v{} {}: no memory limit", g.version, g.path.empty() ? "/" : g.path), source};
  auto detail = fmt::format(
      "cgroup v{} limit {} ({}), {} in use: {} free for {} (the tier's {} on {} + the server's {})",
      g.version, gib(*g.limit_bytes), g.limit_file, gib(g.usage_bytes), gib(g.headroom_bytes()),
      gib(f.tier.total_bytes()), gib(f.tier.tier_host_bytes), vllm_label(f.tier), gib(f.tier.process_bytes));
  if (c.status == CheckStatus::kFail) detail += ": the server would be OOM-killed";
  return {detail, source};
}

CheckWords words(const CheckResult& c, const MemlockFinding& f) {
  std::string source =
      "RLIMIT_MEMLOCK: pinning paths that lock pages (mlock, RDMA/UCX, some container runtimes) count "
      "against it; ulimit -l unlimited";
  if (!f.known) return {f.problem.empty() ? "proc/self/limits unreadable" : f.problem, source};
  if (!f.limit) return {"unlimited", source};
  if (c.status == CheckStatus::kWarn) {
    return {
        fmt::format("max locked memory {} is below the {} tier: set it unlimited (ulimit -l unlimited; in "
                    "Kubernetes/Docker the runtime's memlock ulimit)",
                    format_bytes_binary(*f.limit), gib(f.tier_bytes)),
        source};
  }
  return {"max locked memory " + format_bytes_binary(*f.limit), source};
}

CheckWords words(const CheckResult& c, const MemoryFinding& f) {
  auto source =
      fmt::format("MemAvailable must hold the tier plus a reserve of {} (10% of RAM, at least 8 GiB)",
                  gib(f.reserve_bytes));
  if (!f.problem.empty()) return {f.problem, source};
  const auto detail = fmt::format("MemAvailable {} of {}", gib(f.available_bytes), gib(f.total_bytes));
  const double tier = f.tier.total_bytes();
  const auto needs = fmt::format("{} ({} tier on {} + the server's {})", gib(tier),
                                 gib(f.tier.tier_host_bytes), vllm_label(f.tier), gib(f.tier.process_bytes));
  if (c.status == CheckStatus::kFail) return {fmt::format("{}: {} does not fit", detail, needs), source};
  if (c.status == CheckStatus::kWarn) {
    return {fmt::format("{}: {} leaves {} free, less than the reserve of {} (10% of RAM, at least 8 GiB)",
                        detail, needs, gib(f.available_bytes - tier), gib(f.reserve_bytes)),
            source};
  }
  return {detail, source};
}

CheckWords words(const CheckResult&, const HugepagesFinding& f) {
  std::string source =
      "transparent huge pages cut the first-touch and pinning cost of a large tier (fewer page faults "
      "and pages to register)";
  if (f.thp_mode.empty()) return {"transparent_hugepage/enabled unreadable", source};
  auto detail = fmt::format("transparent huge pages: {}; reserved huge pages: {} x {}", f.thp_mode,
                            f.reserved, format_bytes_binary(f.page_bytes));
  if (f.thp_mode == "never") detail += " (4 KiB pages: pinning a large tier is slower)";
  return {detail, source};
}

CheckWords words(const CheckResult&, const IommuFinding& f) {
  std::string source =
      "DMA through IOMMU translation costs host-link bandwidth; iommu=pt (passthrough) avoids it";
  if (!f.present) return {"no IOMMU active", source};
  if (f.mode == "passthrough") return {"IOMMU in passthrough (iommu=pt)", source};
  return {
      "IOMMU active in translated mode: GPU DMA goes through address translation (kernel command line "
      "iommu=pt avoids it)",
      source};
}

CheckWords words(const CheckResult&, const VirtualizationFinding& f) {
  std::string source =
      "a VM's figures depend on GPU passthrough and its NUMA layout; a container's on its limits";
  std::vector<std::string> parts;
  if (f.hypervisor) parts.push_back("a virtual machine (the CPU reports a hypervisor)");
  if (!f.container.empty()) parts.push_back("a " + f.container + " container");
  if (parts.empty()) return {"bare metal, no container seen", source};
  std::string detail = "running in " + parts.front();
  if (parts.size() > 1) detail += " and " + parts[1];
  if (f.hypervisor) detail += ": link and pinning figures measured here may not hold on bare metal";
  return {detail, source};
}

const char* const kPcieSource =
    "sysfs current_link_* vs max_link_*; a GPU lowers its link speed when idle, its width stays";

CheckWords words(const CheckResult&, const NoGpuOnBus&) {
  return {"no NVIDIA or AMD GPU on the PCI bus", kPcieSource};
}

CheckWords words(const CheckResult& c, const PcieLinkFinding& f) {
  if (!f.now || !f.max) return {f.vendor + " GPU: link speed/width unreadable", kPcieSource};
  auto detail = fmt::format("{} GPU: PCIe Gen{} x{} now, Gen{} x{} max", f.vendor, f.now->generation,
                            f.now->width, f.max->generation, f.max->width);
  if (c.status == CheckStatus::kFail) {
    detail +=
        fmt::format(": trained down to x{}, {:.0f} of {:.0f} GB/s per direction (reseat or check the riser)",
                    f.now->width, f.now->ceiling_gbps, f.max->ceiling_gbps);
  } else if (c.status == CheckStatus::kWarn) {
    detail += ": below its generation now (normal when idle; a measured figure under load decides)";
  }
  return {detail, kPcieSource};
}

CheckWords words(const CheckResult&, const LinkNotMeasured& f) {
  return {"h2d/d2h at 2 MiB not measured: " + f.reason, "kvbench dma --block 2MiB"};
}

CheckWords words(const CheckResult& c, const LinkMeasuredFinding& f) {
  if (c.status == CheckStatus::kSkip) return {f.waived ? f.waive_reason : "the copy did not verify", ""};
  auto detail = fmt::format("{:.1f} GB/s at 2 MiB blocks ({}MemcpyAsync per block) on {} over {}", f.gbps,
                            f.backend, f.device_name, f.link);
  if (f.hardware.empty()) return {detail, "no floor for this GPU model (not in the hardware table)"};
  const double floor = f.floor_share * f.reference_gbps;
  if (c.status == CheckStatus::kFail) detail += fmt::format(": below the {:.1f} GB/s floor", floor);
  return {detail, fmt::format("{:.0f}% of {:.1f} GB/s, the {} figure in scenarios/hardware/{}.yaml",
                              f.floor_share * 100, f.reference_gbps,
                              f.reference_measured ? "measured" : "practical (soft)", f.hardware)};
}

CheckWords words(const CheckResult& c, const BusyFinding& f) {
  std::string source =
      "NVML's running compute processes and utilization (ROCm SMI on AMD), kvbench itself left out; "
      "busy at 50% utilization or more";
  if (!f.device) return {f.no_gpu_reason.empty() ? "no GPU opened" : f.no_gpu_reason, source};
  const auto& o = f.device->occupancy;
  if (c.status == CheckStatus::kSkip) return {o.source.empty() ? "not asked" : o.source, source};
  if (c.status == CheckStatus::kWarn) return {occupancy_text(*f.device), source};
  return {fmt::format(
              "no other process on GPU {}{}", f.device->index,
              o.utilization_percent >= 0 ? fmt::format(", {:.0f}% busy", double(o.utilization_percent)) : ""),
          source};
}

CheckWords words(const CheckResult&, const NumaFinding& f) {
  std::string source =
      "pinned host memory on the GPU's own NUMA node; a remote node costs bandwidth (kvbench dma "
      "--numa-node measures it)";
  if (f.nodes <= 1) return {f.nodes == 1 ? "one NUMA node" : "NUMA topology unreadable", source};
  std::string detail = fmt::format("NUMA nodes: {}", f.nodes);
  bool unknown = false;
  for (const auto& [bus_id, node] : f.gpu_node) {
    detail += fmt::format("; GPU {} on node {}", bus_id, node);
    unknown = unknown || node < 0;
  }
  if (unknown)
    detail += " (-1: the firmware does not say; pin with numactl to the CPU socket of the GPU's root port)";
  return {detail + "; bind the server to the GPU's node (numactl --cpunodebind/--membind)", source};
}

CheckWords words(const CheckResult& c, const NumaMeasuredFinding& f) {
  std::string source =
      "kvbench dma --block 2MiB --direction h2d --method ce --numa-node N; a remote node more than "
      "10% slower means the server must be bound to the GPU's node";
  const auto& m = f.measured;
  auto detail = fmt::format(
      "GPU {} ({}): h2d at 2 MiB {:.1f} GB/s from node {} (its own), {:.1f} GB/s from node {} ({:+.0f}%)",
      m.gpu_index, m.gpu_name, m.local_gbps, m.local_node, m.remote_gbps, m.remote_node, -100 * f.loss);
  if (c.status == CheckStatus::kWarn)
    detail += fmt::format(": bind vLLM to node {0} (numactl --cpunodebind={0} --membind={0})", m.local_node);
  return {detail, source};
}

std::string pinning_text(const PinningTiming& p) {
  if (!p.error.empty())
    return fmt::format("{} of {} failed: {}", p.how, format_bytes_binary(p.bytes), p.error);
  const double s_per_gib = p.seconds / (p.bytes / kGiB);
  return fmt::format("{}: {} in {:.3f} s ({:.2f} s/GiB, {:.1f} GiB/s)", p.how, format_bytes_binary(p.bytes),
                     p.seconds, s_per_gib, 1 / s_per_gib);
}

CheckWords words(const CheckResult&, const PinningFinding& f) {
  std::string source =
      "an H100 and an H200 node pinned at 0.24-0.30 s/GiB the way vLLM does (mmap + touch + "
      "cudaHostRegister), 0.35-0.54 s/GiB with cudaHostAlloc "
      "(tests/data/gpu-runs/*/decode-and-pinning-ground-truth.json)";
  if (f.ways.empty()) return {"not measured", source};
  std::string detail;
  for (std::size_t i = 0; i < f.ways.size(); ++i) detail += (i == 0 ? "" : "; ") + pinning_text(f.ways[i]);
  const auto& p = f.ways.front();
  if (!p.error.empty())
    return {detail + (p.server_tier ? ": vLLM's CPU tier pins this way and will not start" : ""), source};
  return {fmt::format("{}; a {} tier takes about {:.0f} s at every server start", detail, gib(f.tier_bytes),
                      f.startup_s),
          source};
}

CheckWords words(const CheckResult&, const DriverFinding& f) {
  std::string source =
      "the kernel driver as /proc reports it; known failures: vllm-project/vllm#51080 (one "
      "cudaHostRegister of 512 GiB or more fails; chunked since #51081), #55428 (cudaHostRegister is not "
      "allowed under NVIDIA Confidential Computing, NVIDIA R580 TRD1 release notes)";
  if (f.driver.empty()) return {"no NVIDIA or AMD GPU driver loaded", source};
  std::string detail = f.driver + " driver " + f.version;
  if (f.runtime_newer_than_driver) {
    detail +=
        "; the CUDA runtime is newer than this driver supports (upgrade the driver, or use a CUDA build "
        "the driver supports)";
  }
  if (f.confidential_guest) {
    detail +=
        "; a TDX confidential-computing guest: with the GPU in CC mode cudaHostRegister is not allowed and "
        "vLLM's CPU tier fails at start (vllm#55428); cudaHostAlloc still works";
  }
  if (f.register_too_large) {
    detail += fmt::format(
        "; a {} tier: one cudaHostRegister of 512 GiB or more fails with cudaErrorMemoryAllocation "
        "(vllm#51080); "
        "use a vLLM that registers in chunks (#51081)",
        gib(f.tier_bytes));
  }
  return {detail, source};
}

}  // namespace

CheckWords check_words(const CheckResult& c) {
  return std::visit([&](const auto& finding) { return words(c, finding); }, c.finding);
}

std::vector<CheckResult> worded_checks(std::vector<CheckResult> checks) {
  for (auto& c : checks) {
    if (std::holds_alternative<std::monostate>(c.finding)) continue;
    auto w = check_words(c);
    c.detail = std::move(w.detail);
    c.source = std::move(w.source);
  }
  return checks;
}

}  // namespace kvb
