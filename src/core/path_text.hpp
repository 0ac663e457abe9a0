#pragma once
// The one spelling of a file path in kvbench's output. A Linux path is any bytes but '/' and NUL:
// it may hold bytes that are not UTF-8 (JSON and YAML cannot carry them) and newlines (a YAML
// comment or a one-line message would break). Every path written to JSON, YAML or text goes
// through printable_path, and the stderr message as a whole through printable_text.
#include <string>
#include <string_view>

namespace kvb {

// UTF-8 text kept as it is; each byte of an ill-formed sequence as \xNN, control characters as
// \n, \r, \t or \xNN. A backslash stays: printable_path(printable_path(p)) == printable_path(p),
// so a result file read back and written again keeps its bytes.
std::string printable_path(std::string_view raw);

// The same rule for a message or any line of text that may quote an input.
std::string printable_text(std::string_view raw);

// Text of many lines (an HTML page): only the bytes that are not UTF-8 spelled \xNN; line breaks
// and tabs stay as they are.
std::string escape_invalid_utf8(std::string_view raw);

}  // namespace kvb
