#include "dma/dma_record.hpp"

#include <fmt/format.h>

#include "core/host_info.hpp"
#include "core/units.hpp"

namespace kvb {

DmaRecord make_record(const TransferCase& c, const DeviceInfo& dev, const std::string& host_cpu,
                      const CaseResult& r) {
  DmaRecord rec;
  rec.id = c.id();
  rec.tcase = c;
  rec.device = dev;
  rec.host_cpu = host_cpu;
  rec.hostname = host_name();
  rec.waived = r.waived;
  rec.host_numa_node = r.host_numa_node;
  rec.compute_alone_per_s = r.compute_alone_per_s;
  rec.compute_during_per_s = r.compute_during_per_s;
  rec.compute_load = r.compute_load;
  if (r.compute_during_per_s > 0) rec.compute_slowdown = r.compute_alone_per_s / r.compute_during_per_s;
  rec.waive_reason = r.waive_reason;
  rec.case_s = r.case_s;
  rec.pool_setup_s = r.pool_setup_s;
  if (r.waived) return rec;
  rec.precision = r.precision;
  rec.timed_s = r.timed_s;
  rec.loop_s = r.loop_s;
  const double per_direction = static_cast<double>(c.bytes_per_direction());
  rec.bytes = c.direction == Direction::kBidir ? 2 * per_direction : per_direction;
  for (const auto& t : r.runs) {
    rec.samples_s.push_back(t.device_s);
    rec.wall_samples_s.push_back(t.wall_s);
  }
  rec.time = summarize(rec.samples_s);
  auto gbps = [&](double seconds) { return seconds > 0 ? rec.bytes / seconds / 1e9 : 0.0; };
  // Faster is a shorter time: the 10th percentile of bandwidth is the 90th of time.
  rec.median_gbps = gbps(rec.time.median);
  rec.p10_gbps = gbps(rec.time.p90);
  rec.p90_gbps = gbps(rec.time.p10);
  rec.min_gbps = gbps(rec.time.max);
  rec.max_gbps = gbps(rec.time.min);
  rec.wall_gbps = gbps(summarize(rec.wall_samples_s).median);
  double per_dir_gbps = rec.median_gbps;
  if (c.direction == Direction::kBidir && !r.h2d_s.empty()) {
    rec.h2d_gbps = per_direction / summarize(r.h2d_s).median / 1e9;
    rec.d2h_gbps = per_direction / summarize(r.d2h_s).median / 1e9;
    per_dir_gbps = std::max(rec.h2d_gbps, rec.d2h_gbps);
  }
  if (dev.link_ceiling_gbps > 0) rec.link_utilization = per_dir_gbps / dev.link_ceiling_gbps;
  rec.converged = r.converged;
  rec.verified = r.verified;
  rec.verify_detail = r.verify_detail;
  return rec;
}

bool is_plain_one_way(const DmaRecord& r) {
  const auto& c = r.tcase;
  return !r.waived && r.verified && c.direction != Direction::kBidir && !c.with_compute &&
         c.layout == Layout::kContiguous && c.host_mem == HostMemKind::kPinned && c.ctas == 0;
}

std::vector<DmaAggregate> aggregate_devices(const std::vector<DmaRecord>& records) {
  std::vector<DmaAggregate> out;
  for (const auto& r : records) {
    if (r.waived) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const DmaAggregate& a) { return a.id == r.id; });
    if (it == out.end()) {
      out.push_back(DmaAggregate{r.id, {}, 0, 0, 0});
      it = out.end() - 1;
    }
    it->devices.push_back(r.device.index);
    it->median_gbps += r.median_gbps;
    it->h2d_gbps += r.h2d_gbps;
    it->d2h_gbps += r.d2h_gbps;
  }
  out.erase(
      std::remove_if(out.begin(), out.end(), [](const DmaAggregate& a) { return a.devices.size() < 2; }),
      out.end());
  return out;
}

}  // namespace kvb

namespace kvb {

bool GpuOccupancy::disturbed() const {
  return !others.empty() || utilization_percent >= kBusyUtilizationPercent;
}

}  // namespace kvb
