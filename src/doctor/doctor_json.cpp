#include "doctor/doctor_json.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/json_file.hpp"
#include "doctor/tier_dir_checks.hpp"
#include "kvbench_config.hpp"

namespace kvb {

namespace {

using nlohmann::json;

json or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> optional_number(const json& j, const char* key) {
  const auto& v = j.at(key);
  return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
}

json node_memory_json(const NodeMemory& m) {
  return {{"mem_available_bytes", or_null(m.mem_available_bytes)},
          {"mem_total_bytes", or_null(m.mem_total_bytes)},
          {"meminfo_problem", m.meminfo_problem},
          {"cgroup_version", m.cgroup_version},
          {"cgroup_path", m.cgroup_path},
          {"cgroup_limit_bytes", or_null(m.cgroup_limit_bytes)},
          {"cgroup_limit_file", m.cgroup_limit_file},
          {"cgroup_usage_bytes", or_null(m.cgroup_usage_bytes)},
          {"cgroup_problem", m.cgroup_problem},
          {"dev_shm_mounted", m.dev_shm_mounted},
          {"dev_shm_size_bytes", or_null(m.dev_shm_size_bytes)},
          {"dev_shm_free_bytes", or_null(m.dev_shm_free_bytes)},
          {"memlock_known", m.memlock_known},
          {"memlock_soft_bytes", or_null(m.memlock_soft_bytes)}};
}

// The keys below that v1 documents of earlier kvbench releases lack are read with their defaults.
NodeMemory node_memory_from_json(const json& j) {
  NodeMemory m;
  m.mem_available_bytes = optional_number(j, "mem_available_bytes");
  m.mem_total_bytes = optional_number(j, "mem_total_bytes");
  m.meminfo_problem = j.value("meminfo_problem", "");
  m.cgroup_version = static_cast<int>(json_integer_in(j, "cgroup_version", 0, 2, "node_memory"));
  m.cgroup_path = j.at("cgroup_path").get<std::string>();
  m.cgroup_limit_bytes = optional_number(j, "cgroup_limit_bytes");
  m.cgroup_limit_file = j.value("cgroup_limit_file", "");
  m.cgroup_usage_bytes = optional_number(j, "cgroup_usage_bytes");
  m.cgroup_problem = j.value("cgroup_problem", "");
  m.dev_shm_size_bytes = optional_number(j, "dev_shm_size_bytes");
  m.dev_shm_mounted = j.value("dev_shm_mounted", m.dev_shm_size_bytes.has_value());
  m.dev_shm_free_bytes = optional_number(j, "dev_shm_free_bytes");
  m.memlock_known = j.value("memlock_known", false);
  if (m.memlock_known) m.memlock_soft_bytes = optional_number(j, "memlock_soft_bytes");
  return m;
}

json check_json(const CheckResult& c) {
  return {{"name", c.name},
          {"status", to_string(c.status)},
          {"detail", c.detail},
          {"value", or_null(c.value)},
          {"threshold", or_null(c.threshold)},
          {"unit", c.unit},
          {"source", c.source}};
}

CheckResult check_from_json(const json& j) {
  CheckResult c;
  c.name = j.at("name").get<std::string>();
  c.status = parse_check_status(j.at("status").get<std::string>(), "doctor check '" + c.name + "'");
  c.detail = j.at("detail").get<std::string>();
  c.value = optional_number(j, "value");
  c.threshold = optional_number(j, "threshold");
  c.unit = j.at("unit").get<std::string>();
  c.source = j.at("source").get<std::string>();
  return c;
}

json rate_json(const std::optional<TierDirRate>& r) {
  if (!r) return nullptr;
  return {{"case", r->how},
          {"bytes", r->bytes},
          {"waived", r->waived},
          {"write_gbps", r->write_gbps},
          {"read_gbps", r->read_gbps}};
}

// The directory's facts as doctor found them: what its checks word, as figures.
json tier_dir_json(const TierDirRequest& t) {
  const auto& d = t.dir;
  return {{"path", d.path},
          {"problem", to_string(d.problem)},
          {"problem_errno", d.problem_errno},
          {"fs_type", d.fs_type},
          {"fs_magic", d.fs_magic},
          {"fs_kind", to_string(d.fs_kind)},
          {"free_bytes", d.free_bytes},
          {"total_bytes", d.total_bytes},
          {"size_bytes", or_null(t.size_bytes)},
          {"direct_supported", d.direct_supported},
          {"direct_refusal", d.direct_refusal},
          {"rate", rate_json(t.rate)},
          {"needs_gbps", or_null(t.needs_gbps)}};
}

TierDirRequest tier_dir_from_json(const json& j) {
  TierDirRequest t;
  auto& d = t.dir;
  d.path = j.at("path").get<std::string>();
  d.problem = parse_dir_problem(j.at("problem").get<std::string>(), "doctor tier_dir problem");
  d.problem_errno = j.at("problem_errno").get<std::string>();
  d.fs_type = j.at("fs_type").get<std::string>();
  d.fs_magic = static_cast<std::uint32_t>(json_integer_in(j, "fs_magic", 0, 0xffffffffLL, "doctor tier_dir"));
  d.fs_kind = parse_fs_kind(j.at("fs_kind").get<std::string>(), "doctor tier_dir fs_kind");
  constexpr auto kMaxBytes = std::numeric_limits<std::int64_t>::max();
  d.free_bytes =
      static_cast<std::uint64_t>(json_integer_in(j, "free_bytes", 0, kMaxBytes, "doctor tier_dir"));
  d.total_bytes =
      static_cast<std::uint64_t>(json_integer_in(j, "total_bytes", 0, kMaxBytes, "doctor tier_dir"));
  t.size_bytes = optional_number(j, "size_bytes");
  d.direct_supported = j.at("direct_supported").get<bool>();
  d.direct_refusal = j.at("direct_refusal").get<std::string>();
  if (const auto& r = j.at("rate"); !r.is_null()) {
    t.rate =
        TierDirRate{r.at("case").get<std::string>(), json_number_in(r, "bytes", 0, 1e18, "doctor rate"),
                    r.at("waived").get<std::string>(), json_number_in(r, "write_gbps", 0, 1e6, "doctor rate"),
                    json_number_in(r, "read_gbps", 0, 1e6, "doctor rate")};
  }
  t.needs_gbps = optional_number(j, "needs_gbps");
  return t;
}

}  // namespace

NodeMemory node_memory(const NodeFacts& f) {
  const auto known = [](bool ok, double v) { return ok ? std::optional<double>(v) : std::nullopt; };
  const auto& c = f.cgroup;
  const bool shm_known = f.shm.mounted && f.shm.size_known;
  return {.mem_available_bytes = known(f.meminfo_problem.empty(), f.mem_available_bytes),
          .mem_total_bytes = known(f.mem_total_bytes > 0, f.mem_total_bytes),
          .meminfo_problem = f.meminfo_problem,
          .cgroup_version = c.version,
          .cgroup_path = c.path,
          .cgroup_limit_file = c.limit_file,
          .cgroup_problem = c.problem,
          .cgroup_limit_bytes = c.limit_bytes,
          .cgroup_usage_bytes = known(c.version > 0, c.usage_bytes),
          .dev_shm_mounted = f.shm.mounted,
          .dev_shm_size_bytes = known(shm_known, f.shm.size_bytes),
          .dev_shm_free_bytes = known(shm_known, std::max(0.0, f.shm.size_bytes - f.shm.used_bytes)),
          .memlock_known = f.memlock_known,
          .memlock_soft_bytes = f.memlock_soft_bytes};
}

DoctorReport doctor_report(std::vector<CheckResult> checks, const std::string& hostname,
                           const DoctorRequest& request, const NodeFacts& facts) {
  return {.tool = std::string("kvbench ") + KVBENCH_VERSION,
          .hostname = hostname,
          .tier_size_bytes = request.tier_bytes,
          .host_memory = doctor_footprint(request),
          .node_memory = node_memory(facts),
          .checks = std::move(checks),
          .tier_dir = request.tier_dir};
}

json doctor_json(const DoctorReport& r) {
  json doc = {{"schema", kDoctorSchema},
              {"tool", r.tool},
              {"hostname", r.hostname},
              {"tier_size_bytes", r.tier_size_bytes},
              {"host_memory", host_memory_json(r.host_memory)},
              {"node_memory", node_memory_json(r.node_memory)},
              {"checks", json::array()}};
  for (const auto& c : r.checks) doc["checks"].push_back(check_json(c));
  if (r.tier_dir) doc["tier_dir"] = tier_dir_json(*r.tier_dir);
  return doc;
}

DoctorReport doctor_report_from_json(const json& doc) {
  DoctorReport r;
  r.tool = doc.at("tool").get<std::string>();
  r.hostname = doc.at("hostname").get<std::string>();
  r.tier_size_bytes = json_number_in(doc, "tier_size_bytes", 0, 1e18, "doctor");
  r.host_memory = host_footprint_from_json(doc.at("host_memory"));
  r.node_memory = node_memory_from_json(doc.at("node_memory"));
  for (const auto& c : doc.at("checks")) r.checks.push_back(check_from_json(c));
  if (doc.contains("tier_dir")) r.tier_dir = tier_dir_from_json(doc.at("tier_dir"));
  return r;
}

DoctorView doctor_view(const DoctorReport& r) {
  DoctorView v;
  v.hostname = r.hostname;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::kFail) v.failed.push_back(c.name);
    if (c.status == CheckStatus::kWarn) ++v.warned;
  }
  return v;
}

int doctor_exit_code(const std::vector<CheckResult>& checks) {
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kFail) return 1;
  }
  return 0;
}

}  // namespace kvb
