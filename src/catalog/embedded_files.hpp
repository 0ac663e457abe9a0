#pragma once
// The catalog YAML files compiled into the binary (generated from scenarios/ by CMake), and the
// one lookup every catalog (models, hardware, workloads) goes through.
#include <string>
#include <string_view>
#include <vector>

namespace kvb {

struct EmbeddedFile {
  std::string_view path;  // relative to scenarios/, e.g. "models/llama-3.1-8b.yaml"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_scenarios();

struct CatalogEntry {
  std::string name;    // file name without folder and ".yaml", e.g. "llama-3.1-8b"
  std::string origin;  // "scenarios/models/llama-3.1-8b.yaml", for messages
  std::string_view content;
};

// The embedded files in one folder of scenarios/ ("models", "hardware", "workloads"), by path.
std::vector<CatalogEntry> catalog_entries(std::string_view folder);

}  // namespace kvb
