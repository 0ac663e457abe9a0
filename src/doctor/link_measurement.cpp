#include "doctor/link_measurement.hpp"

#include <string>

#include "catalog/hardware_spec.hpp"
#include "core/numa_binding.hpp"
#include "dma/dma_sweep.hpp"

namespace kvb {

namespace {

std::vector<DmaRecord> measure_2mib(TransferBackend& backend, const std::string& direction, int numa_node) {
  DmaSweepSettings s;
  s.block = "2MiB";
  s.method = "ce";
  s.direction = direction;
  s.numa_node = numa_node;
  s.rule.max_seconds = 1.0;
  std::vector<BlocksReduced> reduced;  // 2 MiB blocks: a quarter of the default pool
  return run_dma_cases(backend, plan_dma_cases(s, true, reduced), s.rule);
}

// The hardware file's figure for this direction: measured where it was, else the practical one.
double reference_gbps(const HardwareSpec& hw, Direction d) {
  if (d == Direction::kD2H && hw.measured_link.d2h_gbps > 0) return hw.measured_link.d2h_gbps;
  return hw.measured_link.h2d_gbps > 0 ? hw.measured_link.h2d_gbps : hw.link_practical_gbps;
}

CheckResult link_check(const DmaRecord& r) {
  LinkMeasuredFinding found;
  found.waived = r.waived;
  found.verified = r.verified;
  found.waive_reason = r.waive_reason;
  found.gbps = r.median_gbps;
  // The link as the runtime and sysfs see it: PCIe generation and width, or NVLink-C2C on Grace.
  found.backend = r.device.backend;
  found.device_name = r.device.name;
  found.link = r.device.link;
  found.hardware = hardware_for_device_name(r.device.name);
  CheckResult c;
  // The check's name is an identifier ("link measured h2d GPU 0"), not a sentence.
  c.name = "link measured " + to_string(r.tcase.direction) + " GPU " + std::to_string(r.device.index);
  c.unit = "GB/s";
  c.value = r.median_gbps;
  if (r.waived || !r.verified) {
    c.status = CheckStatus::kSkip;
  } else if (found.hardware.empty()) {
    c.status = CheckStatus::kPass;
  } else {
    const auto hw = resolve_hardware(found.hardware);
    found.hardware = hw.name;  // its file under scenarios/hardware/
    found.reference_gbps = reference_gbps(hw, r.tcase.direction);
    found.reference_measured = !hw.measured_link.source.empty();
    found.floor_share = kLinkFloorShare;
    c.threshold = kLinkFloorShare * found.reference_gbps;
    c.status = r.median_gbps >= *c.threshold ? CheckStatus::kPass : CheckStatus::kFail;
  }
  c.finding = std::move(found);
  return c;
}

}  // namespace

std::vector<DmaRecord> measure_link_2mib(TransferBackend& backend) {
  return measure_2mib(backend, "h2d,d2h", -1);
}

std::optional<NumaMeasurement> measure_numa(TransferBackend& backend, const NodeFacts& facts) {
  const int local = backend.info().numa_node;
  if (facts.numa_nodes < 2 || local < 0 || !numa_supported()) return std::nullopt;
  NumaMeasurement m;
  m.gpu_index = backend.info().index;
  m.gpu_name = backend.info().name;
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

std::vector<CheckResult> link_measured_checks(const std::vector<DmaRecord>& records) {
  std::vector<CheckResult> out;
  for (const auto& r : records) out.push_back(link_check(r));
  return out;
}

}  // namespace kvb
