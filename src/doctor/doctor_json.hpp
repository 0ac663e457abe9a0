#pragma once
// The kvbench/doctor/v1 document: {schema, tool, hostname, tier_size_bytes, host_memory, node_memory,
// checks: [...]}.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doctor/node_checks.hpp"

namespace kvb {

inline constexpr const char* kDoctorSchema = "kvbench/doctor/v1";

// host_memory: the tier's real footprint (HostFootprint); node_memory: what the node offers it.
nlohmann::json doctor_json(const std::vector<CheckResult>& checks, const std::string& hostname,
                           const DoctorRequest& request, const NodeFacts& facts);

// What a fleet report needs of a doctor document: the node and its failed checks.
struct DoctorView {
  std::string hostname;
  std::vector<std::string> failed;  // check names
  int warned = 0;
};
// Throws nlohmann::json::exception for a malformed document.
DoctorView doctor_view_from_json(const nlohmann::json& doc);

// 1 when any check failed, else 0 (the command's exit code).
int doctor_exit_code(const std::vector<CheckResult>& checks);

}  // namespace kvb
