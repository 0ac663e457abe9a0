#pragma once
// One measured case as every printer sees it (nvbench's split: measurement writes records,
// printers only read them). GB/s are decimal; samples are seconds per transfer.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dma/statistics.hpp"
#include "dma/transfer_backend.hpp"
#include "dma/transfer_case.hpp"

namespace kvb {

struct DmaRecord {
  std::string id;
  TransferCase tcase;
  DeviceInfo device;
  std::string host_cpu;
  std::string hostname;  // the node it was measured on (fleet reports group by it)
  bool waived = false;
  std::string waive_reason;
  std::vector<double> samples_s;  // device-timed seconds per transfer
  std::vector<double> wall_samples_s;
  Summary time;      // of samples_s
  double bytes = 0;  // per transfer, both directions for bidir
  double median_gbps = 0, p10_gbps = 0, p90_gbps = 0, min_gbps = 0, max_gbps = 0;
  double wall_gbps = 0;               // median over wall time, submission included
  double h2d_gbps = 0, d2h_gbps = 0;  // bidir: each direction over its own span (median)
  double link_utilization = 0;        // median per-direction GB/s / link ceiling
  bool converged = false;
  bool verified = false;
  std::string verify_detail;
  int host_numa_node = -1;  // measured placement of the host pool; -1 unknown
  // --with-compute: alone / during rate of the compute load (1 = untouched, 2 = half speed).
  double compute_alone_per_s = 0, compute_during_per_s = 0, compute_slowdown = 0;
  std::string compute_load;
  // The stopping rule's result and where the case's time went (seconds; see CaseResult).
  double precision = 0;  // the median's relative 95% half-width at the stop
  double case_s = 0, timed_s = 0, loop_s = 0, pool_setup_s = 0;
  // Set-up, verification and bookkeeping: the case outside its run loop and one-time pool set-up.
  double overhead_s() const { return std::max(0.0, case_s - loop_s - pool_setup_s); }
};

// Records of the same case measured on several devices at once (--device all).
struct DmaAggregate {
  std::string id;
  std::vector<int> devices;
  double median_gbps = 0;             // sum of the devices' medians, all measured while all copied
  double h2d_gbps = 0, d2h_gbps = 0;  // bidir: sums of each direction
};
// One aggregate per case id that more than one device measured (waived records left out).
std::vector<DmaAggregate> aggregate_devices(const std::vector<DmaRecord>& records);

DmaRecord make_record(const TransferCase& c, const DeviceInfo& dev, const std::string& host_cpu,
                      const CaseResult& r);

// A record that describes the link itself, as a link profile or fit reads it: measured and
// verified, one direction, contiguous pinned blocks, no compute load, a kernel on every SM.
bool is_plain_one_way(const DmaRecord& r);

}  // namespace kvb
