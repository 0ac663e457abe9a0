#include "output/doctor/doctor_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/common/host_memory_text.hpp"
#include "output/common/text_table.hpp"

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
    case CheckStatus::kPass:
      return 0;
    case CheckStatus::kWarn:
      return 1;
    case CheckStatus::kFail:
      return 2;
    case CheckStatus::kSkip:
      return -1;
  }
  return -1;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }

// Needs against has, one row per limit the tier meets on the host (left-aligned: the cells are
// sentences, not figures).
std::string host_memory_table(const HostFootprint& t, const NodeMemory& m) {
  std::string out = "\nHost memory for the tier\n";
  for (const auto& line : host_memory_lines(t)) out += "  " + line + "\n";
  const std::string cgroup =
      m.cgroup_version == 0 ? m.cgroup_problem
      : !m.cgroup_limit_bytes
          ? fmt::format("no limit (cgroup v{} {})", m.cgroup_version, printable_path(m.cgroup_path))
          : fmt::format("{} limit, {} in use ({})", gib(*m.cgroup_limit_bytes),
                        gib(m.cgroup_usage_bytes.value_or(0)), m.cgroup_limit_file);
  const std::string shm =
      !m.dev_shm_mounted ? "not mounted"
      : !m.dev_shm_size_bytes
          ? "size unknown"
          : fmt::format("{} free of {}", gib(m.dev_shm_free_bytes.value_or(0)), gib(*m.dev_shm_size_bytes));
  const std::vector<std::array<std::string, 3>> rows = {
      {"limit", "the tier needs", "the node has"},
      {"MemAvailable", gib(t.total_bytes()) + " (tier + server)",
       m.meminfo_problem.empty() ? fmt::format("{} of {}", gib(m.mem_available_bytes.value_or(0)),
                                               gib(m.mem_total_bytes.value_or(0)))
                                 : m.meminfo_problem},
      {"cgroup memory", gib(t.total_bytes()) + " (tier + server)", cgroup},
      {"/dev/shm", t.dev_shm_bytes > 0 ? gib(t.dev_shm_bytes) + " (the tier's region)" : "0 (pinned tensors)",
       shm},
      {"memlock", gib(t.tier_host_bytes) + " (pinned)",
       !m.memlock_known       ? "unknown"
       : m.memlock_soft_bytes ? format_bytes_binary(*m.memlock_soft_bytes)
                              : "unlimited"}};
  std::size_t w0 = 0, w1 = 0;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  for (const auto& r : rows) out += fmt::format("  {:<{}}  {:<{}}  {}\n", r[0], w0, r[1], w1, r[2]);
  return out;
}

}  // namespace

std::string doctor_table(const DoctorReport& r) {
  const auto& checks = r.checks;
  std::string out = fmt::format("kvbench doctor: {} for a {} CPU tier\n", r.hostname,
                                format_bytes_binary(r.tier_size_bytes));
  TextTable t({"check", "status", "detail"});
  for (const auto& c : checks) t.add_row({c.name, to_string(c.status), c.detail});
  out += t.render();
  int fails = 0, warns = 0;
  for (const auto& c : checks) {
    fails += c.status == CheckStatus::kFail;
    warns += c.status == CheckStatus::kWarn;
  }
  out += host_memory_table(r.host_memory, r.node_memory);
  out +=
      fmt::format("{} failed, {} warned; --format json gives each threshold and its source.\n", fails, warns);
  return out;
}

std::string doctor_prometheus(const DoctorReport& r) {
  const auto& checks = r.checks;
  const auto& hostname = r.hostname;
  std::string out =
      "# HELP kvbench_doctor_check_status Node readiness check: 0 pass, 1 warn, 2 fail, -1 skip.\n"
      "# TYPE kvbench_doctor_check_status gauge\n";
  for (const auto& c : checks) {
    out += fmt::format("kvbench_doctor_check_status{{host=\"{}\",check=\"{}\"}} {}\n", label(hostname),
                       label(c.name), status_value(c.status));
  }
  out +=
      "# HELP kvbench_doctor_check_value The figure a check measured or read, in the unit labelled.\n"
      "# TYPE kvbench_doctor_check_value gauge\n";
  for (const auto& c : checks) {
    if (!c.value) continue;
    out += fmt::format("kvbench_doctor_check_value{{host=\"{}\",check=\"{}\",unit=\"{}\"}} {}\n",
                       label(hostname), label(c.name), label(c.unit), *c.value);
  }
  return out;
}

}  // namespace kvb
