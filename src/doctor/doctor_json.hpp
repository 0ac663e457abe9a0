#pragma once
// The kvbench/doctor/v1 document: {schema, tool, hostname, tier_size_bytes, checks: [...]}.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doctor/node_checks.hpp"

namespace kvb {

inline constexpr const char* kDoctorSchema = "kvbench/doctor/v1";

nlohmann::json doctor_json(const std::vector<CheckResult>& checks, const std::string& hostname, double tier_bytes);

// 1 when any check failed, else 0 (the command's exit code).
int doctor_exit_code(const std::vector<CheckResult>& checks);

}  // namespace kvb
