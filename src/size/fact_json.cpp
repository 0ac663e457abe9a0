#include "size/fact_json.hpp"

#include "catalog/vllm_host_memory.hpp"

namespace kvb {

VllmVersion FactFields::version(const nlohmann::json& j, const char* key) const {
  return vllm_version_field(*this, j, key);
}

}  // namespace kvb
