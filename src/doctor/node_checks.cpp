#include "doctor/node_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/vllm_releases.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "dma/sysfs_link.hpp"
#include "doctor/link_measurement.hpp"
#include "doctor/tier_dir_checks.hpp"

namespace kvb {

CheckResult make_check(std::string name, CheckStatus status, CheckFinding finding,
                       std::optional<double> value, std::optional<double> threshold, std::string unit) {
  return {std::move(name), status, {}, value, threshold, std::move(unit), {}, std::move(finding)};
}

namespace {

// vLLM's tier lives in /dev/shm from 0.27 (one mmap'ed region, PR #50094); earlier releases pin
// tensors outside it, but a crashed server's leftovers there still take memory.
CheckResult shm_check(const NodeFacts& f, const HostFootprint& tier) {
  ShmFinding found{f.shm, std::max(0.0, f.shm.size_bytes - f.shm.used_bytes), tier};
  if (!f.shm.mounted || !f.shm.size_known)
    return make_check("shm", CheckStatus::kSkip, found, {}, {}, "bytes");
  const double free = found.free_bytes, need = tier.dev_shm_bytes;
  // A region the release registers in one call fails at 512 GiB whatever /dev/shm holds (#51080).
  const bool unpinnable = region_pin_fails(tier.flag_bytes, tier.version);
  const auto status = unpinnable || (need > 0 && free < need) ? CheckStatus::kFail
                      : f.shm.large_files.empty()             ? CheckStatus::kPass
                                                              : CheckStatus::kWarn;
  return make_check("shm", status, std::move(found), free, std::max(0.0, need), "bytes");
}

// The server is charged its tier and its processes; shared memory cannot be reclaimed, so past the
// cgroup's limit the kernel kills it (vLLM issue #53042).
CheckResult cgroup_check(const NodeFacts& f, const HostFootprint& tier) {
  const auto& c = f.cgroup;
  const CgroupFinding found{c, tier};
  if (c.version == 0) return make_check("cgroup", CheckStatus::kSkip, found, {}, {}, "bytes");
  const auto need = tier.total_bytes();
  if (!c.limit_bytes) return make_check("cgroup", CheckStatus::kPass, found, {}, need, "bytes");
  const double room = c.headroom_bytes();
  return make_check("cgroup", room < need ? CheckStatus::kFail : CheckStatus::kPass, found, room, need,
                    "bytes");
}

CheckResult memlock_check(const NodeFacts& f, const HostFootprint& footprint) {
  const double tier = footprint.tier_host_bytes;
  const MemlockFinding found{f.memlock_known, f.memlock_problem, f.memlock_soft_bytes, tier};
  if (!f.memlock_known) return make_check("memlock", CheckStatus::kSkip, found, {}, {}, "bytes");
  if (!f.memlock_soft_bytes) return make_check("memlock", CheckStatus::kPass, found, {}, tier, "bytes");
  const double limit = *f.memlock_soft_bytes;
  return make_check("memlock", limit < tier ? CheckStatus::kWarn : CheckStatus::kPass, found, limit, tier,
                    "bytes");
}

CheckResult memory_check(const NodeFacts& f, const HostFootprint& footprint) {
  const double tier = footprint.total_bytes();
  // Reserve: 10% of RAM (at least 8 GiB) for the OS, the server's own process and page cache.
  const double reserve = std::max(8 * kGiB, 0.1 * f.mem_total_bytes);
  const MemoryFinding found{f.meminfo_problem, f.mem_available_bytes, f.mem_total_bytes, reserve, footprint};
  if (!f.meminfo_problem.empty()) return make_check("memory", CheckStatus::kSkip, found, {}, {}, "bytes");
  if (f.mem_available_bytes < tier)
    return make_check("memory", CheckStatus::kFail, found, f.mem_available_bytes, tier, "bytes");
  const auto status = f.mem_available_bytes < tier + reserve ? CheckStatus::kWarn : CheckStatus::kPass;
  return make_check("memory", status, found, f.mem_available_bytes, tier + reserve, "bytes");
}

CheckResult hugepages_check(const NodeFacts& f) {
  const HugepagesFinding found{f.thp_mode, f.hugepages_total, f.hugepage_bytes};
  const auto status = f.thp_mode.empty()      ? CheckStatus::kSkip
                      : f.thp_mode == "never" ? CheckStatus::kWarn
                                              : CheckStatus::kPass;
  return make_check("hugepages", status, found);
}

CheckResult iommu_check(const NodeFacts& f) {
  const bool translated = f.iommu_present && f.iommu_mode != "passthrough";
  return make_check("iommu", translated ? CheckStatus::kWarn : CheckStatus::kPass,
                    IommuFinding{f.iommu_present, f.iommu_mode});
}

CheckResult virtualization_check(const NodeFacts& f) {
  return make_check("virtualization", f.hypervisor ? CheckStatus::kWarn : CheckStatus::kPass,
                    VirtualizationFinding{f.hypervisor, f.container});
}

CheckResult pcie_link_check(const GpuPciFacts& g) {
  PcieLinkFinding found{g.vendor, parse_pcie_link(g.current_speed, std::to_string(g.current_width)),
                        parse_pcie_link(g.max_speed, std::to_string(g.max_width))};
  const auto name = "link " + g.bus_id;
  if (!found.now || !found.max) return make_check(name, CheckStatus::kSkip, std::move(found));
  const auto now = *found.now, max = *found.max;
  const auto status = now.width < max.width             ? CheckStatus::kFail
                      : now.generation < max.generation ? CheckStatus::kWarn
                                                        : CheckStatus::kPass;
  return make_check(name, status, std::move(found), now.ceiling_gbps, max.ceiling_gbps, "GB/s");
}

std::vector<CheckResult> link_checks(const NodeFacts& f, const std::string& gpu_skip_reason) {
  if (f.gpus.empty()) return {make_check("link", CheckStatus::kSkip, NoGpuOnBus{})};
  std::vector<CheckResult> out;
  for (const auto& g : f.gpus) out.push_back(pcie_link_check(g));
  if (!gpu_skip_reason.empty())
    out.push_back(
        make_check("link measured", CheckStatus::kSkip, LinkNotMeasured{gpu_skip_reason}, {}, {}, "GB/s"));
  return out;
}

CheckResult numa_check(const NodeFacts& f) {
  NumaFinding found{f.numa_nodes, {}};
  bool unknown = false;
  for (const auto& g : f.gpus) {
    found.gpu_node.emplace_back(g.bus_id, g.numa_node);
    unknown = unknown || g.numa_node < 0;
  }
  return make_check("numa", f.numa_nodes > 1 && unknown ? CheckStatus::kWarn : CheckStatus::kPass,
                    std::move(found));
}

CheckResult pinning_check(const DoctorRequest& r) {
  PinningFinding found{r.pinning, r.tier_bytes, 0};
  if (r.pinning.empty()) return make_check("pinning", CheckStatus::kSkip, found, {}, {}, "s");
  bool other_failed = false;
  for (std::size_t i = 1; i < r.pinning.size(); ++i)
    other_failed = other_failed || !r.pinning[i].error.empty();
  const auto& p = r.pinning.front();
  // vLLM's tier registers its mapping at start-up: where that fails, the server does not start.
  if (!p.error.empty())
    return make_check("pinning", p.server_tier ? CheckStatus::kFail : CheckStatus::kWarn, found, {}, {}, "s");
  found.startup_s = p.seconds / (p.bytes / kGiB) * r.tier_bytes / kGiB;
  const auto status = found.startup_s > 300 || other_failed ? CheckStatus::kWarn : CheckStatus::kPass;
  return make_check("pinning", status, found, found.startup_s, 300, "s");
}

// Pinned host memory on a remote NUMA node crosses the socket interconnect on every copy.
std::vector<CheckResult> numa_measured_checks(const DoctorRequest& r) {
  std::vector<CheckResult> out;
  for (const auto& m : r.numa) {
    const double loss = m.local_gbps > 0 ? 1 - m.remote_gbps / m.local_gbps : 0;
    out.push_back(make_check("numa measured", loss > 0.10 ? CheckStatus::kWarn : CheckStatus::kPass,
                             NumaMeasuredFinding{m, loss}, m.remote_gbps, 0.9 * m.local_gbps, "GB/s"));
  }
  return out;
}

// Known failures of CPU offloading by driver, runtime and platform, each with its public report.
CheckResult driver_check(const NodeFacts& f, const DoctorRequest& r) {
  DriverFinding found;
  found.tier_bytes = r.tier_bytes;
  if (!f.nvidia_driver.empty()) found = {"NVIDIA", f.nvidia_driver, false, false, false, r.tier_bytes};
  if (!f.amdgpu_driver.empty()) found = {"amdgpu", f.amdgpu_driver, false, false, false, r.tier_bytes};
  if (found.driver.empty()) return make_check("driver", CheckStatus::kSkip, found);
  const bool nvidia = !f.nvidia_driver.empty();
  found.runtime_newer_than_driver = r.gpu_skip_reason.find("insufficient") != std::string::npos;
  found.confidential_guest = nvidia && f.tdx_guest;
  found.register_too_large = nvidia && r.tier_bytes >= 512 * kGiB;
  const auto status = found.runtime_newer_than_driver                        ? CheckStatus::kFail
                      : found.confidential_guest || found.register_too_large ? CheckStatus::kWarn
                                                                             : CheckStatus::kPass;
  return make_check("driver", status, found);
}

// Another process on a GPU shares its copy engines, link and HBM: the link figures measured here,
// and a server started beside it, get less than the node can give.
std::vector<CheckResult> busy_checks(const DoctorRequest& r) {
  if (r.gpus.empty())
    return {make_check("busy", CheckStatus::kSkip, BusyFinding{std::nullopt, r.gpu_skip_reason})};
  std::vector<CheckResult> out;
  for (const auto& d : r.gpus) {
    const auto& o = d.occupancy;
    // The check's name is an identifier ("busy GPU 0"), not a sentence.
    auto name = "busy GPU " + std::to_string(d.index);
    const std::optional<double> util =
        o.utilization_percent >= 0 ? std::optional<double>(o.utilization_percent) : std::nullopt;
    const auto status = !o.queried      ? CheckStatus::kSkip
                        : o.disturbed() ? CheckStatus::kWarn
                                        : CheckStatus::kPass;
    if (status == CheckStatus::kSkip) {
      out.push_back(make_check(std::move(name), status, BusyFinding{d, {}}));
    } else {
      out.push_back(
          make_check(std::move(name), status, BusyFinding{d, {}}, util, kBusyUtilizationPercent, "%"));
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
  if (request.tier_dir) {
    for (auto& c : tier_dir_checks(*request.tier_dir)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kvb
