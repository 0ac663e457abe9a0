#include "doctor/node_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "dma/sysfs_link.hpp"
#include "doctor/link_measurement.hpp"

namespace kvb {
namespace {

CheckResult check(std::string name, CheckStatus status, std::string detail, std::optional<double> value = {},
                  std::optional<double> threshold = {}, std::string unit = {}, std::string source = {}) {
  return {std::move(name), status, std::move(detail), value, threshold, std::move(unit), std::move(source)};
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }

std::string vllm_label(const HostFootprint& f) { return "vLLM " + to_string(f.version); }

// vLLM's tier lives in /dev/shm from 0.27 (one mmap'ed region, PR #50094); earlier releases pin
// tensors outside it, but a crashed server's leftovers there still take memory.
CheckResult shm_check(const NodeFacts& f, const HostFootprint& tier) {
  const char* source =
      "vLLM 0.27+ maps its native CPU tier from /dev/shm and refuses to start when it does not fit "
      "(PR #50358); containers often cap it (Docker's default is 64 MB)";
  if (!f.shm.mounted)
    return check("shm", CheckStatus::kSkip, "/dev/shm is not mounted here", {}, {}, "bytes", source);
  if (!f.shm.size_known) {
    return check("shm", CheckStatus::kSkip, "/dev/shm's size unknown (no size= option and no MemTotal)", {},
                 {}, "bytes", source);
  }
  const double free = std::max(0.0, f.shm.size_bytes - f.shm.used_bytes);
  const double need = tier.dev_shm_bytes;
  std::string leftovers;
  for (const auto& [name, bytes] : f.shm.large_files) leftovers += fmt::format(" {} ({})", name, gib(bytes));
  const auto left_text =
      leftovers.empty() ? std::string() : "; large files left there (a crashed server's tier?):" + leftovers;
  const auto size_text =
      fmt::format("/dev/shm {}{}, {} free", gib(f.shm.size_bytes),
                  f.shm.size_from_default ? " (tmpfs default: half of RAM)" : "", gib(free));
  if (need <= 0) {
    return check("shm", leftovers.empty() ? CheckStatus::kPass : CheckStatus::kWarn,
                 fmt::format("{}: {} keeps the tier in pinned tensors, outside /dev/shm{}", size_text,
                             vllm_label(tier), left_text),
                 free, 0.0, "bytes", source);
  }
  if (free < need) {
    return check("shm", CheckStatus::kFail,
                 fmt::format("{}: {}'s {} tier region does not fit{}", size_text, vllm_label(tier), gib(need),
                             left_text),
                 free, need, "bytes", source);
  }
  return check(
      "shm", leftovers.empty() ? CheckStatus::kPass : CheckStatus::kWarn,
      fmt::format("{}: {}'s {} tier region fits{}", size_text, vllm_label(tier), gib(need), left_text), free,
      need, "bytes", source);
}

// The server is charged its tier and its processes; shared memory cannot be reclaimed, so past the
// cgroup's limit the kernel kills it (vLLM issue #53042).
CheckResult cgroup_check(const NodeFacts& f, const HostFootprint& tier) {
  const char* source =
      "the memory cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes; a pod's limit in "
      "Kubernetes) less what it already uses must hold the tier's real footprint and the server";
  const auto& c = f.cgroup;
  if (c.version == 0) return check("cgroup", CheckStatus::kSkip, c.problem, {}, {}, "bytes", source);
  const auto need = tier.total_bytes();
  if (!c.limit_bytes) {
    return check("cgroup", CheckStatus::kPass,
                 fmt::format("cgroup v{} {}: no memory limit", c.version, c.path.empty() ? "/" : c.path), {},
                 need, "bytes", source);
  }
  const double room = c.headroom_bytes();
  const auto detail = fmt::format(
      "cgroup v{} limit {} ({}), {} in use: {} free for {} (the tier's {} on {} + "
      "the server's {})",
      c.version, gib(*c.limit_bytes), c.limit_file, gib(c.usage_bytes), gib(room), gib(need),
      gib(tier.tier_host_bytes), vllm_label(tier), gib(tier.process_bytes));
  if (room < need) {
    return check("cgroup", CheckStatus::kFail, detail + ": the server would be OOM-killed", room, need,
                 "bytes", source);
  }
  return check("cgroup", CheckStatus::kPass, detail, room, need, "bytes", source);
}

CheckResult memlock_check(const NodeFacts& f, const HostFootprint& footprint) {
  const double tier = footprint.tier_host_bytes;
  const char* source =
      "RLIMIT_MEMLOCK: pinning paths that lock pages (mlock, RDMA/UCX, some container runtimes) count "
      "against it; ulimit -l unlimited";
  if (!f.memlock_known) {
    return check("memlock", CheckStatus::kSkip,
                 f.memlock_problem.empty() ? "proc/self/limits unreadable" : f.memlock_problem, {}, {},
                 "bytes", source);
  }
  if (!f.memlock_soft_bytes)
    return check("memlock", CheckStatus::kPass, "unlimited", {}, tier, "bytes", source);
  const double limit = *f.memlock_soft_bytes;
  if (limit < tier) {
    return check(
        "memlock", CheckStatus::kWarn,
        fmt::format("max locked memory {} is below the {} tier: set it unlimited (ulimit -l unlimited; in "
                    "Kubernetes/Docker the runtime's memlock ulimit)",
                    format_bytes_binary(limit), gib(tier)),
        limit, tier, "bytes", source);
  }
  return check("memlock", CheckStatus::kPass, fmt::format("max locked memory {}", format_bytes_binary(limit)),
               limit, tier, "bytes", source);
}

CheckResult memory_check(const NodeFacts& f, const HostFootprint& footprint) {
  const double tier = footprint.total_bytes();
  // Reserve: 10% of RAM (at least 8 GiB) for the OS, the server's own process and page cache.
  const double reserve = std::max(8 * kGiB, 0.1 * f.mem_total_bytes);
  const auto source = fmt::format(
      "MemAvailable must hold the tier plus a reserve of {} (10% of RAM, at least 8 GiB)", gib(reserve));
  if (!f.meminfo_problem.empty())
    return check("memory", CheckStatus::kSkip, f.meminfo_problem, {}, {}, "bytes", source);
  const auto detail =
      fmt::format("MemAvailable {} of {}", gib(f.mem_available_bytes), gib(f.mem_total_bytes));
  const auto needs =
      fmt::format("{} ({} tier on {} + the server's {})", gib(tier), gib(footprint.tier_host_bytes),
                  vllm_label(footprint), gib(footprint.process_bytes));
  if (f.mem_available_bytes < tier) {
    return check("memory", CheckStatus::kFail, fmt::format("{}: {} does not fit", detail, needs),
                 f.mem_available_bytes, tier, "bytes", source);
  }
  if (f.mem_available_bytes < tier + reserve) {
    return check(
        "memory", CheckStatus::kWarn,
        fmt::format("{}: {} leaves {} free, less than the reserve of {} (10% of RAM, at least 8 GiB)", detail,
                    needs, gib(f.mem_available_bytes - tier), gib(reserve)),
        f.mem_available_bytes, tier + reserve, "bytes", source);
  }
  return check("memory", CheckStatus::kPass, detail, f.mem_available_bytes, tier + reserve, "bytes", source);
}

CheckResult hugepages_check(const NodeFacts& f) {
  const char* source =
      "transparent huge pages cut the first-touch and pinning cost of a large tier (fewer page faults "
      "and pages to register)";
  if (f.thp_mode.empty())
    return check("hugepages", CheckStatus::kSkip, "transparent_hugepage/enabled unreadable", {}, {}, "",
                 source);
  const auto detail = fmt::format("transparent huge pages: {}; reserved huge pages: {} x {}", f.thp_mode,
                                  f.hugepages_total, format_bytes_binary(f.hugepage_bytes));
  return check("hugepages", f.thp_mode == "never" ? CheckStatus::kWarn : CheckStatus::kPass,
               f.thp_mode == "never" ? detail + " (4 KiB pages: pinning a large tier is slower)" : detail, {},
               {}, "", source);
}

CheckResult iommu_check(const NodeFacts& f) {
  const char* source =
      "DMA through IOMMU translation costs host-link bandwidth; iommu=pt (passthrough) avoids it";
  if (!f.iommu_present) return check("iommu", CheckStatus::kPass, "no IOMMU active", {}, {}, "", source);
  if (f.iommu_mode == "passthrough")
    return check("iommu", CheckStatus::kPass, "IOMMU in passthrough (iommu=pt)", {}, {}, "", source);
  return check(
      "iommu", CheckStatus::kWarn,
      "IOMMU active in translated mode: GPU DMA goes through address translation (kernel command line "
      "iommu=pt avoids it)",
      {}, {}, "", source);
}

CheckResult virtualization_check(const NodeFacts& f) {
  const char* source =
      "a VM's figures depend on GPU passthrough and its NUMA layout; a container's on its limits";
  std::vector<std::string> parts;
  if (f.hypervisor) parts.push_back("a virtual machine (the CPU reports a hypervisor)");
  if (!f.container.empty()) parts.push_back("a " + f.container + " container");
  if (parts.empty())
    return check("virtualization", CheckStatus::kPass, "bare metal, no container seen", {}, {}, "", source);
  std::string detail = "running in " + parts.front();
  if (parts.size() > 1) detail += " and " + parts[1];
  return check(
      "virtualization", f.hypervisor ? CheckStatus::kWarn : CheckStatus::kPass,
      detail + (f.hypervisor ? ": link and pinning figures measured here may not hold on bare metal" : ""),
      {}, {}, "", source);
}

std::vector<CheckResult> link_checks(const NodeFacts& f, const std::string& gpu_skip_reason) {
  const char* source =
      "sysfs current_link_* vs max_link_*; a GPU lowers its link speed when idle, its width stays";
  std::vector<CheckResult> out;
  if (f.gpus.empty()) {
    out.push_back(
        check("link", CheckStatus::kSkip, "no NVIDIA or AMD GPU on the PCI bus", {}, {}, "", source));
    return out;
  }
  for (const auto& g : f.gpus) {
    const auto cur = parse_pcie_link(g.current_speed, std::to_string(g.current_width));
    const auto max = parse_pcie_link(g.max_speed, std::to_string(g.max_width));
    const auto name = "link " + g.bus_id;
    if (!cur || !max) {
      out.push_back(check(name, CheckStatus::kSkip,
                          fmt::format("{} GPU: link speed/width unreadable", g.vendor), {}, {}, "", source));
      continue;
    }
    const auto detail = fmt::format("{} GPU: PCIe Gen{} x{} now, Gen{} x{} max", g.vendor, cur->generation,
                                    cur->width, max->generation, max->width);
    if (cur->width < max->width) {
      out.push_back(
          check(name, CheckStatus::kFail,
                detail + fmt::format(": trained down to x{}, {:.0f} of {:.0f} GB/s per direction (reseat or "
                                     "check the riser)",
                                     cur->width, cur->ceiling_gbps, max->ceiling_gbps),
                cur->ceiling_gbps, max->ceiling_gbps, "GB/s", source));
    } else if (cur->generation < max->generation) {
      out.push_back(check(
          name, CheckStatus::kWarn,
          detail + ": below its generation now (normal when idle; a measured figure under load decides)",
          cur->ceiling_gbps, max->ceiling_gbps, "GB/s", source));
    } else {
      out.push_back(
          check(name, CheckStatus::kPass, detail, cur->ceiling_gbps, max->ceiling_gbps, "GB/s", source));
    }
  }
  if (!gpu_skip_reason.empty()) {
    out.push_back(check("link measured", CheckStatus::kSkip,
                        "h2d/d2h at 2 MiB not measured: " + gpu_skip_reason, {}, {}, "GB/s",
                        "kvbench dma --block 2MiB"));
  }
  return out;
}

CheckResult numa_check(const NodeFacts& f) {
  const char* source =
      "pinned host memory on the GPU's own NUMA node; a remote node costs bandwidth (kvbench dma "
      "--numa-node measures it)";
  if (f.numa_nodes <= 1) {
    return check("numa", CheckStatus::kPass, f.numa_nodes == 1 ? "one NUMA node" : "NUMA topology unreadable",
                 {}, {}, "", source);
  }
  std::string detail = fmt::format("NUMA nodes: {}", f.numa_nodes);
  bool unknown = false;
  for (const auto& g : f.gpus) {
    detail += fmt::format("; GPU {} on node {}", g.bus_id, g.numa_node);
    unknown = unknown || g.numa_node < 0;
  }
  if (unknown)
    detail += " (-1: the firmware does not say; pin with numactl to the CPU socket of the GPU's root port)";
  return check("numa", unknown ? CheckStatus::kWarn : CheckStatus::kPass,
               detail + "; bind the server to the GPU's node (numactl --cpunodebind/--membind)", {}, {}, "",
               source);
}

std::string describe_pinning(const PinningMeasurement& p) {
  if (!p.error.empty())
    return fmt::format("{} of {} failed: {}", p.how, format_bytes_binary(p.bytes), p.error);
  const double s_per_gib = p.seconds / (p.bytes / kGiB);
  return fmt::format("{}: {} in {:.3f} s ({:.2f} s/GiB, {:.1f} GiB/s)", p.how, format_bytes_binary(p.bytes),
                     p.seconds, s_per_gib, 1 / s_per_gib);
}

CheckResult pinning_check(const DoctorRequest& r) {
  const char* source =
      "an H100 and an H200 node pinned at 0.24-0.30 s/GiB the way vLLM does (mmap + touch + "
      "cudaHostRegister), 0.35-0.54 s/GiB with cudaHostAlloc "
      "(tests/data/gpu-runs/*/decode-and-pinning-ground-truth.json)";
  if (r.pinning.empty()) return check("pinning", CheckStatus::kSkip, "not measured", {}, {}, "s", source);
  std::string detail;
  bool other_failed = false;
  for (std::size_t i = 0; i < r.pinning.size(); ++i) {
    detail += (i == 0 ? "" : "; ") + describe_pinning(r.pinning[i]);
    other_failed = other_failed || (i > 0 && !r.pinning[i].error.empty());
  }
  const auto& p = r.pinning.front();
  if (!p.error.empty()) {
    // vLLM's tier registers its mapping at start-up: where that fails, the server does not start.
    return check("pinning", p.server_tier ? CheckStatus::kFail : CheckStatus::kWarn,
                 detail + (p.server_tier ? ": vLLM's CPU tier pins this way and will not start" : ""), {}, {},
                 "s", source);
  }
  const double startup = p.seconds / (p.bytes / kGiB) * r.tier_bytes / kGiB;
  return check("pinning", startup > 300 || other_failed ? CheckStatus::kWarn : CheckStatus::kPass,
               fmt::format("{}; a {} tier takes about {:.0f} s at every server start", detail,
                           gib(r.tier_bytes), startup),
               startup, 300, "s", source);
}

// Pinned host memory on a remote NUMA node crosses the socket interconnect on every copy.
std::vector<CheckResult> numa_measured_checks(const DoctorRequest& r) {
  const char* source =
      "kvbench dma --block 2MiB --direction h2d --method ce --numa-node N; a remote node more than "
      "10% slower means the server must be bound to the GPU's node";
  std::vector<CheckResult> out;
  for (const auto& m : r.numa) {
    const double loss = m.local_gbps > 0 ? 1 - m.remote_gbps / m.local_gbps : 0;
    const auto detail = fmt::format(
        "{}: h2d at 2 MiB {:.1f} GB/s from node {} (its own), {:.1f} GB/s from node {} "
        "({:+.0f}%)",
        m.device, m.local_gbps, m.local_node, m.remote_gbps, m.remote_node, -100 * loss);
    out.push_back(check("numa measured", loss > 0.10 ? CheckStatus::kWarn : CheckStatus::kPass,
                        loss > 0.10
                            ? detail + fmt::format(": bind vLLM to node {0} (numactl --cpunodebind={0} "
                                                   "--membind={0})",
                                                   m.local_node)
                            : detail,
                        m.remote_gbps, 0.9 * m.local_gbps, "GB/s", source));
  }
  return out;
}

// Known failures of CPU offloading by driver, runtime and platform, each with its public report.
CheckResult driver_check(const NodeFacts& f, const DoctorRequest& r) {
  const char* source =
      "the kernel driver as /proc reports it; known failures: vllm-project/vllm#51080 (one "
      "cudaHostRegister of 512 GiB or more fails; chunked since #51081), #55428 (cudaHostRegister is not "
      "allowed under NVIDIA Confidential Computing, NVIDIA R580 TRD1 release notes)";
  std::string driver;
  if (!f.nvidia_driver.empty()) driver = "NVIDIA driver " + f.nvidia_driver;
  if (!f.amdgpu_driver.empty()) driver = "amdgpu driver " + f.amdgpu_driver;
  if (driver.empty())
    return check("driver", CheckStatus::kSkip, "no NVIDIA or AMD GPU driver loaded", {}, {}, "", source);
  std::vector<std::string> problems;
  auto status = CheckStatus::kPass;
  if (r.gpu_skip_reason.find("insufficient") != std::string::npos) {
    problems.push_back(
        "the CUDA runtime is newer than this driver supports (upgrade the driver, or use a CUDA build "
        "the driver supports)");
    status = CheckStatus::kFail;
  }
  if (!f.nvidia_driver.empty() && f.tdx_guest) {
    problems.push_back(
        "a TDX confidential-computing guest: with the GPU in CC mode cudaHostRegister is not allowed and "
        "vLLM's CPU tier fails at start (vllm#55428); cudaHostAlloc still works");
    status = std::max(status, CheckStatus::kWarn);
  }
  if (!f.nvidia_driver.empty() && r.tier_bytes >= 512 * kGiB) {
    problems.push_back(
        fmt::format("a {} tier: one cudaHostRegister of 512 GiB or more fails with "
                    "cudaErrorMemoryAllocation (vllm#51080); use a vLLM that registers in chunks "
                    "(#51081)",
                    gib(r.tier_bytes)));
    status = std::max(status, CheckStatus::kWarn);
  }
  std::string detail = driver;
  for (const auto& p : problems) detail += "; " + p;
  return check("driver", status, detail, {}, {}, "", source);
}

// Another process on a GPU shares its copy engines, link and HBM: the link figures measured here,
// and a server started beside it, get less than the node can give.
std::vector<CheckResult> busy_checks(const DoctorRequest& r) {
  const char* source =
      "NVML's running compute processes and utilization (ROCm SMI on AMD), kvbench itself left out; "
      "busy at 50% utilization or more";
  if (r.gpus.empty()) {
    return {check("busy", CheckStatus::kSkip, r.gpu_skip_reason.empty() ? "no GPU opened" : r.gpu_skip_reason,
                  {}, {}, "", source)};
  }
  std::vector<CheckResult> out;
  for (const auto& d : r.gpus) {
    const auto& o = d.occupancy;
    const auto name = fmt::format("busy GPU {}", d.index);
    const std::optional<double> util =
        o.utilization_percent >= 0 ? std::optional<double>(o.utilization_percent) : std::nullopt;
    if (!o.queried) {
      out.push_back(
          check(name, CheckStatus::kSkip, o.source.empty() ? "not asked" : o.source, {}, {}, "", source));
    } else if (o.disturbed()) {
      out.push_back(
          check(name, CheckStatus::kWarn, describe_occupancy(d), util, kBusyUtilizationPercent, "%", source));
    } else {
      out.push_back(check(name, CheckStatus::kPass,
                          fmt::format("no other process on GPU {}{}", d.index,
                                      util ? fmt::format(", {:.0f}% busy", *util) : std::string()),
                          util, kBusyUtilizationPercent, "%", source));
    }
  }
  return out;
}

}  // namespace

std::string to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkip:
      return "skip";
  }
  return "skip";
}

CheckStatus parse_check_status(const std::string& text, const std::string& what) {
  for (const auto s : {CheckStatus::kPass, CheckStatus::kWarn, CheckStatus::kFail, CheckStatus::kSkip}) {
    if (text == to_string(s)) return s;
  }
  throw UsageError(fmt::format("{}: status '{}'; expected pass, warn, fail or skip", what, text));
}

HostFootprint doctor_footprint(const DoctorRequest& request) {
  return tier_host_footprint(request.tier_bytes, request.ranks, 1, request.vllm_version);
}

std::vector<CheckResult> run_node_checks(const NodeFacts& facts, const DoctorRequest& request) {
  const auto footprint = doctor_footprint(request);
  std::vector<CheckResult> out = link_checks(facts, request.gpu_skip_reason);
  for (auto& c : link_measured_checks(request.link_records)) out.push_back(std::move(c));
  for (auto& c : busy_checks(request)) out.push_back(std::move(c));
  out.push_back(numa_check(facts));
  for (auto& c : numa_measured_checks(request)) out.push_back(std::move(c));
  out.push_back(pinning_check(request));
  out.push_back(shm_check(facts, footprint));
  out.push_back(memlock_check(facts, footprint));
  out.push_back(memory_check(facts, footprint));
  out.push_back(cgroup_check(facts, footprint));
  out.push_back(hugepages_check(facts));
  out.push_back(iommu_check(facts));
  out.push_back(virtualization_check(facts));
  out.push_back(driver_check(facts, request));
  return out;
}

}  // namespace kvb
