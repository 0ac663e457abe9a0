#include "sim/yaml_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {

// `hi` bounds what a key can physically be; the message says the range.
double positive(const YamlObject& o, const std::string& key, double fallback, bool allow_zero, double hi) {
  const double v = o.real_or(key, fallback);
  if ((!(v > 0) && !(allow_zero && v == 0)) || v > hi) {
    throw UsageError(fmt::format("{}: key '{}' must be {} and at most {:g} (got {:g})", o.origin(), key,
                                 allow_zero ? ">= 0" : "> 0", hi, v));
  }
  return v;
}

// Read as 64 bits and range-checked before any narrowing, so 4294967297 is refused, never 1.
std::int64_t positive_int(const YamlObject& o, const std::string& key, std::int64_t fallback, bool allow_zero,
                          std::int64_t hi) {
  const auto v = o.integer_or(key, fallback);
  if (v < 0 || (v == 0 && !allow_zero) || v > hi) {
    throw UsageError(fmt::format("{}: key '{}' must be a whole number from {} to {} (got {})", o.origin(),
                                 key, allow_zero ? 0 : 1, hi, v));
  }
  return v;
}

std::string one_of(const YamlObject& o, const std::string& key, const std::string& fallback,
                   const std::vector<std::string>& allowed) {
  const auto v = o.str_or(key, fallback);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    throw UsageError(
        fmt::format("{}: key '{}' is '{}'; expected {}", o.origin(), key, v, join(allowed, ", ")));
  }
  return v;
}

std::optional<std::uint64_t> bytes_or_none(const YamlObject& o, const std::string& key) {
  if (!o.has(key)) return std::nullopt;
  // The second argument names the key in parse_bytes' error.
  const auto bytes = parse_bytes(o.str(key), fmt::format("{}: key '{}'", o.origin(), key)).bytes;
  if (bytes == 0) throw UsageError(fmt::format("{}: key '{}' must be > 0", o.origin(), key));
  return bytes;
}

}  // namespace kvb
