#include "core/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/errors.hpp"
#include "core/strings.hpp"

namespace kvb {

YamlObject::YamlObject(YAML::Node node, std::string origin) : node_(std::move(node)), origin_(std::move(origin)) {
  if (!node_.IsMap()) {
    throw UsageError(fmt::format("{}: expected a YAML mapping of key: value lines", origin_));
  }
}

namespace {

// yaml-cpp keeps both entries of a duplicated key and lookups see only the first: a second
// "model:" line would be ignored without a word. Refused instead, with its line.
void reject_duplicate_keys(const YAML::Node& node, const std::string& origin) {
  if (node.IsSequence()) {
    for (const auto& item : node) reject_duplicate_keys(item, origin);
    return;
  }
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second) {
      throw UsageError(fmt::format("{}: key '{}' appears twice (line {}); expected each key once", origin,
                                   kv.first.Scalar(), kv.first.Mark().line + 1));
    }
    reject_duplicate_keys(kv.second, origin);
  }
}

}  // namespace

YamlObject YamlObject::parse(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: malformed YAML at line {}: {}", origin, e.mark.line + 1, e.msg));
  }
  reject_duplicate_keys(root, origin);
  return YamlObject(root, origin);
}

bool YamlObject::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

YAML::Node YamlObject::get(const std::string& key) const {
  YAML::Node n = node_[key];
  if (!n) throw UsageError(fmt::format("{}: missing required key '{}'", origin_, key));
  return n;
}

void YamlObject::type_error(const std::string& key, const char* expected) const {
  throw UsageError(fmt::format("{}: key '{}' has the wrong type; expected {}", origin_, key, expected));
}

std::string YamlObject::str(const std::string& key) const {
  const auto n = get(key);
  if (!n.IsScalar()) type_error(key, "a string");
  return n.as<std::string>();
}

std::string YamlObject::str_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? str(key) : fallback;
}

long long YamlObject::integer(const std::string& key) const {
  const auto n = get(key);
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v)) type_error(key, "an integer");
  return v;
}

long long YamlObject::integer_or(const std::string& key, long long fallback) const {
  return has(key) ? integer(key) : fallback;
}

double YamlObject::real(const std::string& key) const {
  const auto n = get(key);
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || v != v) type_error(key, "a number");
  return v;
}

double YamlObject::real_or(const std::string& key, double fallback) const {
  return has(key) ? real(key) : fallback;
}

bool YamlObject::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto n = get(key);
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) type_error(key, "true or false");
  return v;
}

std::vector<std::string> YamlObject::str_list_or(const std::string& key) const {
  if (!has(key)) return {};
  const auto n = get(key);
  if (!n.IsSequence()) type_error(key, "a list of strings");
  std::vector<std::string> out;
  for (const auto& item : n) {
    if (!item.IsScalar()) type_error(key, "a list of strings");
    out.push_back(item.as<std::string>());
  }
  return out;
}

YamlObject YamlObject::object(const std::string& key) const {
  const auto n = get(key);
  if (!n.IsMap()) type_error(key, "a mapping");
  return YamlObject(n, fmt::format("{} ({})", origin_, key));
}

void YamlObject::reject_unknown_keys(const std::vector<std::string>& allowed) const {
  for (const auto& kv : node_) {
    const auto key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const auto near = closest_names(key, allowed, 1);
      throw UsageError(fmt::format("{}: unknown key '{}'{}", origin_, key,
                                   near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near.front())));
    }
  }
}

}  // namespace kvb
