#include "core/path_text.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace kvb {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (2 to 4 bytes), 0 when it is none.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0)
    len = 2, cp = c & 0x1Fu;
  else if ((c & 0xF0) == 0xE0)
    len = 3, cp = c & 0x0Fu;
  else if ((c & 0xF8) == 0xF0)
    len = 4, cp = c & 0x07u;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  static constexpr std::uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void escape_byte(std::string& out, unsigned char c) {
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += fmt::format("\\x{:02x}", c);
  }
}

std::string escaped(std::string_view raw, bool keep_controls) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c >= 0x80) {
      const auto len = utf8_sequence(raw, i);
      if (len > 0) {
        out.append(raw.substr(i, len));
        i += len;
        continue;
      }
      escape_byte(out, c);
    } else if ((c < 0x20 || c == 0x7f) && !keep_controls) {
      escape_byte(out, c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string printable_path(std::string_view raw) { return escaped(raw, false); }

std::string printable_text(std::string_view raw) { return escaped(raw, false); }

std::string escape_invalid_utf8(std::string_view raw) { return escaped(raw, true); }

}  // namespace kvb
