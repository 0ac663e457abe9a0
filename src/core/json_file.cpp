#include "core/json_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace kvb {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read the file (expected a readable JSON file)", what));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not valid JSON ({})", what, e.what()));
  }
}

std::string schema_of(const nlohmann::json& doc, const std::string& otherwise) {
  if (!doc.is_object()) return otherwise;
  const auto it = doc.find("schema");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

}  // namespace kvb
