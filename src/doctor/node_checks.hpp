#pragma once
// `kvbench doctor`'s checks: is this node ready for a CPU KV tier of a given size? Each check
// gives pass, warn, fail or skip with the figure, the threshold and where the threshold comes from.
#include <optional>
#include <string>
#include <vector>

#include "catalog/vllm_host_memory.hpp"
#include "dma/dma_record.hpp"
#include "dma/transfer_backend.hpp"
#include "doctor/check_findings.hpp"
#include "doctor/node_facts.hpp"
#include "doctor/tier_dir_facts.hpp"

namespace kvb {

enum class CheckStatus { kPass, kWarn, kFail, kSkip };
std::string to_string(CheckStatus s);
// "pass", "warn", "fail", "skip"; UsageError naming `what` otherwise.
CheckStatus parse_check_status(const std::string& text, const std::string& what);

struct CheckResult {
  std::string name;  // link, numa, pinning, shm, memlock, memory, cgroup, busy, hugepages, iommu,
                     // virtualization, driver; tier-dir, tier-dir fs|space|O_DIRECT|rate
  CheckStatus status = CheckStatus::kSkip;
  std::string detail;  // one line an operator acts on: worded by output/doctor/doctor_check_text
  std::optional<double> value;
  std::optional<double> threshold;
  std::string unit;      // "bytes", "GB/s", "s", ""
  std::string source;    // where the threshold comes from: worded with the detail
  CheckFinding finding;  // what the check found; std::monostate in a document read back
};

// A check's result from what it found; its detail is worded later (output/doctor/doctor_check_text).
CheckResult make_check(std::string name, CheckStatus status, CheckFinding finding,
                       std::optional<double> value = {}, std::optional<double> threshold = {},
                       std::string unit = {});

// Pinning measured by the caller (doctor's pinning test): the backend's ways, or the host stand-in.
using PinningMeasurement = PinningTiming;

struct DoctorRequest {
  double tier_bytes = 0;  // --tier-size
  // The first is what the tier's start-up is projected from: vLLM's way where it was measured.
  std::vector<PinningMeasurement> pinning;
  std::string gpu_skip_reason;                     // non-empty: no GPU opened, GPU measurements skipped
  std::vector<NumaMeasurement> numa;               // one per GPU, where the node has several NUMA nodes
  VllmVersion vllm_version = kNewestModelledVllm;  // --vllm-version
  std::vector<DeviceInfo> gpus = {};               // the GPUs opened, with what else was running on them
  int ranks = 1;                                   // --tp: the ranks the tier is split across
  std::vector<DmaRecord> link_records = {};        // 2 MiB h2d and d2h per GPU (link_measurement)
  std::optional<TierDirRequest> tier_dir = {};     // --tier-dir: a secondary tier's directory
};

// What the tier really takes for the request's vLLM release and ranks: the shm, memlock, memory and
// cgroup checks compare this, not the flag. One tensor per rank (a uniform model's cross-layer
// tier); `kvbench size` knows a hybrid model's tensors.
HostFootprint doctor_footprint(const DoctorRequest& request);

std::vector<CheckResult> run_node_checks(const NodeFacts& facts, const DoctorRequest& request);

}  // namespace kvb
