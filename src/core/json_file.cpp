#include "core/json_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace kvb {
namespace {

bool read_whole_file(const std::string& path, std::string& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what) {
  std::string text;
  if (!read_whole_file(path, text)) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      throw UsageError(fmt::format("{} '{}': is a directory; expected a file", what, path));
    }
    throw UsageError(fmt::format("{} '{}': cannot read the file", what, path));
  }
  return text;
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::string text;
  if (!read_whole_file(path, text)) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      throw UsageError(fmt::format("{}: is a directory; expected a kvbench JSON result file", what));
    }
    throw UsageError(fmt::format("{}: cannot read the file (expected a readable JSON file)", what));
  }
  try {
    return nlohmann::json::parse(text);
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
