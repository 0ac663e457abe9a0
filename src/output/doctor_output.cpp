#include "output/doctor_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/host_memory_text.hpp"
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
std::string host_memory_table(const HostFootprint& t, const NodeFacts& f) {
  std::string out = "\nHost memory for the tier\n";
  for (const auto& line : host_memory_lines(t)) out += "  " + line + "\n";
  const auto& c = f.cgroup;
  const std::string cgroup =
      c.version == 0 ? c.problem
      : !c.limit_bytes
          ? fmt::format("no limit (cgroup v{} {})", c.version, printable_path(c.path))
          : fmt::format("{} limit, {} in use ({})", gib(*c.limit_bytes), gib(c.usage_bytes), c.limit_file);
  const std::string shm =
      !f.shm.mounted ? "not mounted"
      : !f.shm.size_known
          ? "size unknown"
          : fmt::format("{} free of {}", gib(std::max(0.0, f.shm.size_bytes - f.shm.used_bytes)),
                        gib(f.shm.size_bytes));
  const std::vector<std::array<std::string, 3>> rows = {
      {"limit", "the tier needs", "the node has"},
      {"MemAvailable", gib(t.total_bytes()) + " (tier + server)",
       f.meminfo_problem.empty() ? fmt::format("{} of {}", gib(f.mem_available_bytes), gib(f.mem_total_bytes))
                                 : f.meminfo_problem},
      {"cgroup memory", gib(t.total_bytes()) + " (tier + server)", cgroup},
      {"/dev/shm", t.dev_shm_bytes > 0 ? gib(t.dev_shm_bytes) + " (the tier's region)" : "0 (pinned tensors)",
       shm},
      {"memlock", gib(t.tier_host_bytes) + " (pinned)",
       !f.memlock_known       ? "unknown"
       : f.memlock_soft_bytes ? format_bytes_binary(*f.memlock_soft_bytes)
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

std::string doctor_table(const std::vector<CheckResult>& checks, const std::string& hostname,
                         const DoctorRequest& request, const NodeFacts& facts) {
  std::string out = fmt::format("kvbench doctor: {} for a {} CPU tier\n", hostname,
                                format_bytes_binary(request.tier_bytes));
  TextTable t({"check", "status", "detail"});
  for (const auto& c : checks) t.add_row({c.name, to_string(c.status), c.detail});
  out += t.render();
  int fails = 0, warns = 0;
  for (const auto& c : checks) {
    fails += c.status == CheckStatus::kFail;
    warns += c.status == CheckStatus::kWarn;
  }
  out += host_memory_table(doctor_footprint(request), facts);
  out +=
      fmt::format("{} failed, {} warned; --format json gives each threshold and its source.\n", fails, warns);
  return out;
}

std::string doctor_prometheus(const std::vector<CheckResult>& checks, const std::string& hostname) {
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
