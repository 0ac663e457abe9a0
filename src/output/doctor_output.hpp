#pragma once
// kvbench doctor's printers: a table for people, Prometheus text for node-exporter's textfile
// collector (one gauge per check: 0 pass, 1 warn, 2 fail, -1 skip; and each figure it measured).
#include <string>
#include <vector>

#include "doctor/node_checks.hpp"

namespace kvb {

std::string doctor_table(const std::vector<CheckResult>& checks, const std::string& hostname, double tier_bytes);
std::string doctor_prometheus(const std::vector<CheckResult>& checks, const std::string& hostname);

}  // namespace kvb
