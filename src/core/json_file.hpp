#pragma once
// Reading input files (JSON, YAML, text) with errors that name them (exit 2, never an exception
// escaping).
#include <nlohmann/json.hpp>
#include <string>

namespace kvb {

// The whole file; UsageError "<what> '<path>': cannot read the file" when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& what);

// `what` prefixes the message, e.g. "--link-profile 'x.json'" or "x.json".
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// The document's "schema" string; `otherwise` when it is not an object or has no string schema
// (json::value() would throw a type error on {"schema": 1}).
std::string schema_of(const nlohmann::json& doc, const std::string& otherwise = "");

}  // namespace kvb
