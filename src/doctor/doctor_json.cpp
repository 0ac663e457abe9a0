#include "doctor/doctor_json.hpp"

#include "kvbench_config.hpp"

namespace kvb {

nlohmann::json doctor_json(const std::vector<CheckResult>& checks, const std::string& hostname, double tier_bytes) {
  using nlohmann::json;
  json doc = {{"schema", kDoctorSchema},
              {"tool", std::string("kvbench ") + KVBENCH_VERSION},
              {"hostname", hostname},
              {"tier_size_bytes", tier_bytes},
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
