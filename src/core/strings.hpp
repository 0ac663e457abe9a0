#pragma once
// Small string helpers: closest-name suggestions for unknown inputs, joining lists.
#include <string>
#include <string_view>
#include <vector>

namespace kvb {

std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates closest to `name` (by edit distance, then by shared prefix).
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::vector<std::string> split(std::string_view text, char sep);
std::string to_lower(std::string_view s);
std::string trim_copy(std::string_view s);  // without leading and trailing white space

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): text read from
// a file must be, before it reaches JSON output (nlohmann refuses to dump anything else).
bool is_valid_utf8(std::string_view s);

}  // namespace kvb
