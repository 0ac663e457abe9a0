#include "catalog/embedded_files.hpp"

namespace kvb {

std::vector<CatalogEntry> catalog_entries(std::string_view folder) {
  const std::string prefix = std::string(folder) + "/";
  constexpr std::string_view kSuffix = ".yaml";
  std::vector<CatalogEntry> out;
  for (const auto& f : embedded_scenarios()) {
    if (!f.path.starts_with(prefix) || !f.path.ends_with(kSuffix)) continue;
    const auto name = f.path.substr(prefix.size(), f.path.size() - prefix.size() - kSuffix.size());
    out.push_back({std::string(name), "scenarios/" + std::string(f.path), f.content});
  }
  return out;
}

}  // namespace kvb
