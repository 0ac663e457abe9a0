#include "core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/errors.hpp"

namespace kvb {
namespace {

struct NumberAndSuffix {
  double value = 0;
  std::string_view number;
  std::string_view suffix;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "3.81GiB" into 3.81 and "GiB". Only plain decimal numbers: no sign, no exponent,
// so "-1", "1e9" and "nan" are rejected here with the caller's message.
bool split_number(std::string_view text, NumberAndSuffix& out) {
  text = trim(text);
  std::size_t i = 0;
  bool digits = false;
  bool dot = false;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
    ++i;
  }
  if (!digits) return false;
  out.number = text.substr(0, i);
  out.suffix = trim(text.substr(i));
  const auto* first = out.number.data();
  const auto* last = first + out.number.size();
  const auto res = std::from_chars(first, last, out.value);
  return res.ec == std::errc() && res.ptr == last && std::isfinite(out.value);
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace

ParsedBytes parse_bytes(std::string_view text, std::string_view what) {
  const auto accepted = "a size such as 4096, 512B, 2MB (10^6), 2MiB (2^20), 3.81GiB or 4GB";
  NumberAndSuffix ns;
  if (!split_number(text, ns)) {
    throw UsageError(fmt::format("{}: '{}' is not a size; expected {}", what, text, accepted));
  }
  struct Unit {
    const char* name;
    double factor;
    const char* label;
  };
  static constexpr std::array<Unit, 11> units{{{"", 1, "B"},
                                               {"b", 1, "B"},
                                               {"kb", 1e3, "kB (decimal, 10^3)"},
                                               {"mb", 1e6, "MB (decimal, 10^6)"},
                                               {"gb", 1e9, "GB (decimal, 10^9)"},
                                               {"tb", 1e12, "TB (decimal, 10^12)"},
                                               {"kib", 1024.0, "KiB (binary, 2^10)"},
                                               {"mib", 1024.0 * 1024, "MiB (binary, 2^20)"},
                                               {"gib", kGiB, "GiB (binary, 2^30)"},
                                               {"tib", kGiB * 1024, "TiB (binary, 2^40)"},
                                               {"bytes", 1, "B"}}};
  const std::string suffix = lower(ns.suffix);
  for (const auto& u : units) {
    if (suffix == u.name) {
      // A fraction of a byte is a missing unit ('1.5' meant 1.5 GiB?), not something to round.
      if (u.factor == 1 && ns.value != std::floor(ns.value)) {
        throw UsageError(
            fmt::format("{}: '{}' is not a whole number of bytes; expected {}", what, text, accepted));
      }
      const double bytes = std::floor(ns.value * u.factor);
      if (bytes < 1) {
        throw UsageError(fmt::format("{}: '{}' is zero bytes; expected a positive size", what, text));
      }
      if (bytes > 9.0e18) {
        throw UsageError(fmt::format("{}: '{}' is too large; expected at most 8 EiB", what, text));
      }
      ParsedBytes out;
      out.bytes = static_cast<std::uint64_t>(bytes);
      out.meaning = fmt::format("{} {}", ns.number, u.label);
      return out;
    }
  }
  throw UsageError(
      fmt::format("{}: unknown unit '{}' in '{}'; expected {}", what, ns.suffix, text, accepted));
}

std::int64_t parse_token_count(std::string_view text, std::string_view what) {
  const auto accepted = "a token count such as 131072, 128k (x1000), 128K (x1024), 1M (x1048576)";
  NumberAndSuffix ns;
  if (!split_number(text, ns)) {
    throw UsageError(fmt::format("{}: '{}' is not a token count; expected {}", what, text, accepted));
  }
  double factor = 0;
  // vLLM's human-readable integers: lower case is decimal, upper case is binary.
  if (ns.suffix.empty())
    factor = 1;
  else if (ns.suffix == "k")
    factor = 1e3;
  else if (ns.suffix == "K")
    factor = 1024;
  else if (ns.suffix == "m")
    factor = 1e6;
  else if (ns.suffix == "M")
    factor = 1024.0 * 1024;
  else if (ns.suffix == "g")
    factor = 1e9;
  else if (ns.suffix == "G")
    factor = kGiB;
  else {
    throw UsageError(
        fmt::format("{}: unknown suffix '{}' in '{}'; expected {}", what, ns.suffix, text, accepted));
  }
  const double tokens = ns.value * factor;
  if (tokens != std::floor(tokens)) {
    throw UsageError(
        fmt::format("{}: '{}' is {} tokens, not a whole number; expected {}", what, text, tokens, accepted));
  }
  if (tokens < 1) {
    throw UsageError(fmt::format("{}: '{}' is zero; expected a positive token count", what, text));
  }
  if (tokens > static_cast<double>(kMaxTokens)) {
    throw UsageError(fmt::format("{}: '{}' is too large; expected at most 10^12 tokens", what, text));
  }
  return static_cast<std::int64_t>(tokens);
}

namespace {

// Digits only (after trimming), into 64 bits: from_chars reports overflow instead of wrapping.
bool parse_integer(std::string_view text, std::int64_t& value) {
  const auto t = trim(text);
  const auto res = std::from_chars(t.data(), t.data() + t.size(), value);
  return !t.empty() && res.ec == std::errc() && res.ptr == t.data() + t.size();
}

}  // namespace

std::int64_t parse_positive_int(std::string_view text, std::string_view what, bool allow_zero,
                                std::int64_t hi) {
  std::int64_t v = 0;
  const std::int64_t lo = allow_zero ? 0 : 1;
  if (!parse_integer(text, v) || v < 0 || (v == 0 && !allow_zero)) {
    throw UsageError(fmt::format("{}: '{}' is not a {} integer; expected a whole number from {} to {}", what,
                                 text, allow_zero ? "non-negative" : "positive", lo, hi));
  }
  if (v > hi)
    throw UsageError(
        fmt::format("{}: '{}' is too large; expected a whole number from {} to {}", what, text, lo, hi));
  return v;
}

std::int64_t parse_int_in(std::string_view text, std::string_view what, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (!parse_integer(text, v) || v < lo || v > hi) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number from {} to {}", what, text, lo, hi));
  }
  return v;
}

double parse_plain_real(std::string_view text, std::string_view what) {
  NumberAndSuffix ns;
  if (!split_number(text, ns) || !ns.suffix.empty()) {
    throw UsageError(fmt::format(
        "{}: '{}' is not a plain decimal number; expected e.g. 0.5 or 2 (no sign, no exponent)", what, text));
  }
  return ns.value;
}

double parse_real_in(std::string_view text, std::string_view what, double lo, double hi,
                     std::string_view example) {
  NumberAndSuffix ns;
  if (!split_number(text, ns) || !ns.suffix.empty() || ns.value <= lo || ns.value > hi) {
    // The default example lies inside the range: its upper end, or the middle of a narrow one.
    const std::string e = example.empty()
                              ? fmt::format("{:g}", hi <= 1 ? hi : std::min(hi, std::max(1.0, (lo + hi) / 2)))
                              : std::string(example);
    throw UsageError(fmt::format("{}: '{}' is not a number above {} and at most {}; expected e.g. {}", what,
                                 text, format_plain_number(lo), format_plain_number(hi), e));
  }
  return ns.value;
}

double parse_gib_size(std::string_view text, std::string_view what) {
  NumberAndSuffix ns;
  if (!split_number(text, ns) || !ns.suffix.empty() || !(ns.value >= 0) || ns.value > kMaxTierGib) {
    throw UsageError(fmt::format(
        "{}: '{}' is not a size in GiB; expected a number of GiB from 0 to 1000000 (e.g. 64)", what, text));
  }
  return ns.value;
}

double parse_seconds(std::string_view text, std::string_view what) {
  NumberAndSuffix ns;
  double scale = 0;
  if (split_number(text, ns)) {
    if (ns.suffix.empty() || ns.suffix == "s") scale = 1;
    if (ns.suffix == "ms") scale = 1e-3;
    if (ns.suffix == "us") scale = 1e-6;
  }
  const double seconds = ns.value * scale;
  if (scale == 0 || !(seconds > 0) || seconds > 3600) {
    throw UsageError(
        fmt::format("{}: '{}' is not a latency; expected a time above 0 and at most 1 hour, e.g. 2s, "
                    "500ms or 0.5 (seconds)",
                    what, text));
  }
  return seconds;
}

std::string format_bytes_binary(double bytes) {
  if (bytes >= kGiB * 1024) return fmt::format("{:.2f} TiB", bytes / (kGiB * 1024));
  if (bytes >= kGiB) return fmt::format("{:.2f} GiB", bytes / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.2f} MiB", bytes / kMiB);
  if (bytes >= 1024) return fmt::format("{:.2f} KiB", bytes / 1024);
  // A positive amount below one byte (a 1e-10 GiB tier) is not "0 B".
  if (bytes > 0 && bytes < 1) return fmt::format("{:.2g} B", bytes);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_bytes_decimal(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.2f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_plain_number(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v);
}

std::string format_count(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

std::string format_seconds(double seconds) {
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.1f} us", seconds * 1e6);
}

std::string format_block_size(std::uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

}  // namespace kvb
