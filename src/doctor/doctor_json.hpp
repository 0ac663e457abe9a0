#pragma once
// The kvbench/doctor/v1 document as one typed result, DoctorReport: its JSON writer and a reader
// that gives back the same document byte for byte; the table and Prometheus printers
// (output/doctor/doctor_output) and the report's fleet section read the same type.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catalog/vllm_host_memory.hpp"
#include "doctor/node_checks.hpp"

namespace kvb {

inline constexpr const char* kDoctorSchema = "kvbench/doctor/v1";

// What the node offers the tier, in bytes; absent where it is unknown (the cgroup limit: where
// there is none), with why.
struct NodeMemory {
  std::optional<double> mem_available_bytes, mem_total_bytes;
  std::string meminfo_problem;  // why MemAvailable is unknown
  int cgroup_version = 0;       // 0: no memory cgroup found
  std::string cgroup_path, cgroup_limit_file, cgroup_problem;
  std::optional<double> cgroup_limit_bytes, cgroup_usage_bytes;
  bool dev_shm_mounted = false;
  std::optional<double> dev_shm_size_bytes, dev_shm_free_bytes;
  bool memlock_known = false;
  std::optional<double> memlock_soft_bytes;  // known and absent: unlimited
  bool operator==(const NodeMemory&) const = default;
};
NodeMemory node_memory(const NodeFacts& f);

struct DoctorReport {
  std::string tool;  // "kvbench <version>" of the run that wrote it
  std::string hostname;
  double tier_size_bytes = 0;  // --tier-size
  HostFootprint host_memory;   // what the tier really takes on the release asked for
  NodeMemory node_memory;
  std::vector<CheckResult> checks;
  std::optional<TierDirRequest> tier_dir;  // --tier-dir: the directory's facts, its size and rate
};
DoctorReport doctor_report(std::vector<CheckResult> checks, const std::string& hostname,
                           const DoctorRequest& request, const NodeFacts& facts);

nlohmann::json doctor_json(const DoctorReport& r);
// Throws nlohmann::json::exception for a malformed document, UsageError for a bad release or status.
DoctorReport doctor_report_from_json(const nlohmann::json& doc);

// What a fleet report needs of a doctor document: the node and its failed checks.
struct DoctorView {
  std::string hostname;
  std::vector<std::string> failed;  // check names
  int warned = 0;
};
DoctorView doctor_view(const DoctorReport& r);

// 1 when any check failed, else 0 (the command's exit code).
int doctor_exit_code(const std::vector<CheckResult>& checks);

}  // namespace kvb
