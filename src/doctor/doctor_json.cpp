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

int doctor_exit_code(const std::vector<CheckResult>& checks) {
  for (const auto& c : checks) {
    if (c.status == CheckStatus::kFail) return 1;
  }
  return 0;
}

}  // namespace kvb
