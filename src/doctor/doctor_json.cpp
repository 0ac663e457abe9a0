#include "doctor/doctor_json.hpp"

#include <algorithm>

#include "kvbench_config.hpp"

namespace kvb {

namespace {

// Byte figures the node offers the tier; null where unknown (or, for the cgroup limit, none).
nlohmann::json node_memory_json(const NodeFacts& f) {
  using nlohmann::json;
  const auto known = [](bool ok, double v) { return ok ? json(v) : json(nullptr); };
  const auto& c = f.cgroup;
  return {{"mem_available_bytes", known(f.meminfo_problem.empty(), f.mem_available_bytes)},
          {"mem_total_bytes", known(f.mem_total_bytes > 0, f.mem_total_bytes)},
          {"cgroup_version", c.version},
          {"cgroup_path", c.path},
          {"cgroup_limit_bytes", c.limit_bytes ? json(*c.limit_bytes) : json(nullptr)},
          {"cgroup_usage_bytes", known(c.version > 0, c.usage_bytes)},
          {"dev_shm_size_bytes", known(f.shm.mounted && f.shm.size_known, f.shm.size_bytes)},
          {"dev_shm_free_bytes",
           known(f.shm.mounted && f.shm.size_known, std::max(0.0, f.shm.size_bytes - f.shm.used_bytes))}};
}

}  // namespace

nlohmann::json doctor_json(const std::vector<CheckResult>& checks, const std::string& hostname,
                           const DoctorRequest& request, const NodeFacts& facts) {
  using nlohmann::json;
  json doc = {{"schema", kDoctorSchema},
              {"tool", std::string("kvbench ") + KVBENCH_VERSION},
              {"hostname", hostname},
              {"tier_size_bytes", request.tier_bytes},
              {"host_memory", host_memory_json(doctor_footprint(request))},
              {"node_memory", node_memory_json(facts)},
              {"checks", json::array()}};
  for (const auto& c : checks) {
    doc["checks"].push_back({{"name", c.name},
                             {"status", to_string(c.status)},
                             {"detail", c.detail},
                             {"value", c.value ? json(*c.value) : json(nullptr)},
                             {"threshold", c.threshold ? json(*c.threshold) : json(nullptr)},
                             {"unit", c.unit},
                             {"source", c.source}});
  }
  return doc;
}

DoctorView doctor_view_from_json(const nlohmann::json& doc) {
  DoctorView v;
  v.hostname = doc.at("hostname").get<std::string>();
  for (const auto& c : doc.at("checks")) {
    const auto status = c.at("status").get<std::string>();
    if (status == "fail") v.failed.push_back(c.at("name").get<std::string>());
    if (status == "warn") ++v.warned;
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
