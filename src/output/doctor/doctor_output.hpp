#pragma once
// kvbench doctor's printers: a table for people, Prometheus text for node-exporter's textfile
// collector (one gauge per check: 0 pass, 1 warn, 2 fail, -1 skip; and each figure it measured).
#include <string>
#include <vector>

#include "doctor/doctor_json.hpp"

namespace kvb {

// The checks, then the tier's real host footprint beside what the node offers it.
std::string doctor_table(const DoctorReport& r);
std::string doctor_prometheus(const DoctorReport& r);

}  // namespace kvb
