#include "report/html_escape.hpp"

#include "core/path_text.hpp"

namespace kvb {

std::string html_escape(std::string_view raw) {
  // The page is UTF-8: a byte of a path that is not (a file named bad\xff.json) is spelled \xNN.
  const auto text = escape_invalid_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

}  // namespace kvb
