#include "size/fact_json.hpp"

#include <fmt/format.h>

#include "catalog/vllm_host_memory.hpp"
#include "core/errors.hpp"

namespace kvb {

void refuse_tag(const std::string& where, const char* key, const std::string& tag,
                const std::vector<std::string>& accepted) {
  throw UsageError(
      fmt::format("{}: field '{}' is '{}'; expected one of {}", where, key, tag, fmt::join(accepted, ", ")));
}

VllmVersion FactFields::version(const nlohmann::json& j, const char* key) const {
  return vllm_version_field(*this, j, key);
}

std::string fact_kind(const nlohmann::json& j, const std::string& where, const char* noun) {
  if (!j.is_object()) {
    throw UsageError(
        fmt::format("{}: {} is a {}; expected an object with a kind", where, noun, j.type_name()));
  }
  const auto it = j.find("kind");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void refuse_kind(const std::string& where, const std::string& kind, const char* noun,
                 const std::vector<std::string>& kinds) {
  throw UsageError(fmt::format("{}: kind '{}' is not {} kvbench writes; expected one of {}", where, kind,
                               noun, fmt::join(kinds, ", ")));
}

const nlohmann::json* fact_list(const nlohmann::json& record, const char* key, const std::string& origin,
                                const char* plural) {
  const auto it = record.find(key);
  if (it == record.end()) return nullptr;
  if (!it->is_array()) {
    throw UsageError(
        fmt::format("{}: field '{}' is a {}; expected a list of {}", origin, key, it->type_name(), plural));
  }
  return &*it;
}

}  // namespace kvb
