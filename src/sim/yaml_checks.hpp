#pragma once
// A scenario's keys checked where they are read: each refusal names the file, the key and what it
// accepts (UsageError). Shared by the scenario reader and the server's field table.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "core/yaml_reader.hpp"
#include "sim/distribution.hpp"

namespace kvb {

// A number > 0 (>= 0 with allow_zero) and at most `hi`, or `fallback` when the key is absent.
double positive(const YamlObject& o, const std::string& key, double fallback, bool allow_zero = false,
                double hi = 1e15);
// A whole number read as 64 bits and range-checked before any narrowing, so 4294967297 is refused, never 1.
std::int64_t positive_int(const YamlObject& o, const std::string& key, std::int64_t fallback,
                          bool allow_zero = false, std::int64_t hi = kMaxCount);
// One of `allowed`, or `fallback` when the key is absent.
std::string one_of(const YamlObject& o, const std::string& key, const std::string& fallback,
                   const std::vector<std::string>& allowed);
// A byte size ("3.81GiB") > 0, or none when the key is absent.
std::optional<std::uint64_t> bytes_or_none(const YamlObject& o, const std::string& key);
// Reads `key` of a scenario mapping as a Distribution (sim/distribution.hpp); throws UsageError
// naming `origin` and `key`. `allow_zero` admits a fixed 0 (no think time, no system prefix).
Distribution parse_distribution(const YAML::Node& node, const std::string& origin, const std::string& key,
                                bool allow_zero);

}  // namespace kvb
