#pragma once
// Reading a JSON input file with errors that name it (exit 2, never an exception escaping).
#include <nlohmann/json.hpp>
#include <string>

namespace kvb {

// `what` prefixes the message, e.g. "--link-profile 'x.json'" or "x.json".
nlohmann::json read_json_file(const std::string& path, const std::string& what);

}  // namespace kvb
