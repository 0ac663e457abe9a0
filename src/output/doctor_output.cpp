#include "output/doctor_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "output/text_table.hpp"

namespace kvb {
namespace {

// Prometheus label values: backslash, double quote and newline escaped.
std::string label(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

int status_value(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return 0;
    case CheckStatus::kWarn: return 1;
    case CheckStatus::kFail: return 2;
    case CheckStatus::kSkip: return -1;
  }
  return -1;
}

}  // namespace

std::string doctor_table(const std::vector<CheckResult>& checks, const std::string& hostname, double tier_bytes) {
  std::string out = fmt::format("kvbench doctor: {} for a {} CPU tier\n", hostname, format_bytes_binary(tier_bytes));
  TextTable t({"check", "status", "detail"});
  for (const auto& c : checks) t.add_row({c.name, to_string(c.status), c.detail});
  out += t.render();
  int fails = 0, warns = 0;
  for (const auto& c : checks) {
    fails += c.status == CheckStatus::kFail;
    warns += c.status == CheckStatus::kWarn;
  }
  out += fmt::format("{} failed, {} warned; --format json gives each threshold and its source.\n", fails, warns);
  return out;
}

std::string doctor_prometheus(const std::vector<CheckResult>& checks, const std::string& hostname) {
  std::string out = "# HELP kvbench_doctor_check_status Node readiness check: 0 pass, 1 warn, 2 fail, -1 skip.\n"
                    "# TYPE kvbench_doctor_check_status gauge\n";
  for (const auto& c : checks) {
    out += fmt::format("kvbench_doctor_check_status{{host=\"{}\",check=\"{}\"}} {}\n", label(hostname), label(c.name),
                       status_value(c.status));
  }
  out += "# HELP kvbench_doctor_check_value The figure a check measured or read, in the unit labelled.\n"
         "# TYPE kvbench_doctor_check_value gauge\n";
  for (const auto& c : checks) {
    if (!c.value) continue;
    out += fmt::format("kvbench_doctor_check_value{{host=\"{}\",check=\"{}\",unit=\"{}\"}} {}\n", label(hostname),
                       label(c.name), label(c.unit), *c.value);
  }
  return out;
}

}  // namespace kvb
