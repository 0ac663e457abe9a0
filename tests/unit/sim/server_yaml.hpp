#pragma once
// A server as the scenario writer emits it: two servers are the same where this text is.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/scenario.hpp"
#include "sim/server_fields.hpp"

namespace kvb::test {

inline std::string emitted(const ServerSpec& v) {
  YAML::Emitter e;
  e << server_to_yaml(v);
  return e.c_str();
}

}  // namespace kvb::test
