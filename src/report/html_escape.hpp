#pragma once
// Every string that reaches the report from input files or the system goes through here.
#include <string>
#include <string_view>

namespace kvb {

// Escapes & < > " ' so the text is safe both as element content and inside a quoted attribute.
std::string html_escape(std::string_view text);

}  // namespace kvb
