#pragma once
// The catalog YAML files compiled into the binary (generated from scenarios/ by CMake).
#include <string_view>
#include <vector>

namespace kvb {

struct EmbeddedFile {
  std::string_view path;     // relative to scenarios/, e.g. "models/llama-3.1-8b.yaml"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_scenarios();

}  // namespace kvb
