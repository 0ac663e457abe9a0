#include "core/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string_view>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {

YamlObject::YamlObject(YAML::Node node, std::string origin)
    : node_(std::move(node)), origin_(std::move(origin)) {
  if (!node_.IsMap()) {
    throw UsageError(fmt::format("{}: expected a YAML mapping of key: value lines", origin_));
  }
}

namespace {

// One walk over the parsed tree checks what every reader relies on. yaml-cpp keeps both entries
// of a duplicated key and lookups see only the first: a second "model:" line would be ignored
// without a word, so it is refused with its line. Strings must be UTF-8 (they reach JSON output).
// Aliases are walked as expanded, so a node budget stops an alias bomb in milliseconds.
class TreeCheck {
 public:
  explicit TreeCheck(const std::string& origin) : origin_(origin) {}

  void walk(const YAML::Node& node, int depth = 0) {
    // An alias inside its own anchor is a cycle: without a depth limit the walk (and any reader)
    // would recurse until the stack runs out. No kvbench file nests more than a few levels.
    if (depth > kMaxDepth) {
      throw UsageError(
          fmt::format("{}: nested deeper than {} levels near line {} (or an alias inside its own "
                      "anchor); expected a flat file of key: value lines",
                      origin_, kMaxDepth, node.Mark().line + 1));
    }
    if (++nodes_ > YamlObject::kMaxNodes) {
      throw UsageError(
          fmt::format("{}: more than {} YAML nodes (aliases counted as expanded); expected a "
                      "smaller file",
                      origin_, YamlObject::kMaxNodes));
    }
    if (node.IsScalar()) return utf8(node);
    if (node.IsSequence()) {
      for (const auto& item : node) walk(item, depth + 1);
      return;
    }
    if (!node.IsMap()) return;
    std::set<std::string> seen;
    for (const auto& kv : node) {
      // Every reader names keys as strings: a list, a mapping or a null as a key ("? [a, b]: 1",
      // "sweep: {[x]: 1}") is refused here, once, not wherever a reader converts it.
      if (!kv.first.IsScalar()) {
        throw UsageError(
            fmt::format("{}: line {} has a key that is not a plain name; expected key: value lines", origin_,
                        kv.first.Mark().line + 1));
      }
      walk(kv.first, depth + 1);
      if (!seen.insert(kv.first.Scalar()).second) {
        throw UsageError(fmt::format("{}: key '{}' appears twice (line {}); expected each key once", origin_,
                                     kv.first.Scalar(), kv.first.Mark().line + 1));
      }
      walk(kv.second, depth + 1);
    }
  }

 private:
  void utf8(const YAML::Node& node) const {
    if (is_valid_utf8(node.Scalar())) return;
    throw UsageError(fmt::format("{}: line {} holds text that is not valid UTF-8; expected UTF-8 text",
                                 origin_, node.Mark().line + 1));
  }

  static constexpr int kMaxDepth = 64;
  const std::string& origin_;
  std::size_t nodes_ = 0;
};

// A line that is a document marker: "---" or "..." alone or followed by a space.
bool is_marker(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

// Whether `text` holds a second YAML document: a "---" after content, or content after "...".
// Found by its marker lines, not by yaml-cpp's LoadAll: on a stray ',' where a document starts
// ("#c\n,x") its parser hands back an empty document without consuming the token, and LoadAll
// loops forever, allocating (found by fuzz_scenario).
bool has_second_document(const std::string& text) {
  bool content = false, ended = false;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#' || (!content && line[0] == '%')) continue;
    if (is_marker(line, "---")) {
      if (content || ended) return true;
      continue;
    }
    if (is_marker(line, "...")) {
      ended = content;
      continue;
    }
    if (ended) return true;
    content = true;
  }
  return false;
}

}  // namespace

YamlObject YamlObject::parse(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);  // the first document only (has_second_document says why not LoadAll)
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}: malformed YAML at line {}: {}", origin, e.mark.line + 1, e.msg));
  }
  // Readers look at the first document only: a second one ("---") would be ignored without a word.
  if (has_second_document(text)) {
    throw UsageError(fmt::format(
        "{}: holds a second YAML document (after a '---' line); expected one document of key: value lines",
        origin));
  }
  check_tree(root, origin);
  return YamlObject(root, origin);
}

void YamlObject::check_tree(const YAML::Node& node, const std::string& origin) {
  TreeCheck(origin).walk(node);
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

namespace {

// One number syntax, the flags': decimal digits with an optional sign. yaml-cpp reads YAML 1.1's
// forms, 010 as octal 8 and 0x10 as 16, where --replicas 010 is 10: leading zeros are decimal here
// and other bases are refused.
bool decimal_integer(const std::string& text, long long& v) {
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+' && first + 1 != last && first[1] != '-') ++first;
  const auto [end, ec] = std::from_chars(first, last, v);
  return ec == std::errc() && end == last;
}

}  // namespace

long long YamlObject::integer(const std::string& key) const {
  const auto n = get(key);
  long long v = 0;
  if (!n.IsScalar() || !decimal_integer(n.Scalar(), v)) type_error(key, "an integer in decimal digits");
  return v;
}

long long YamlObject::integer_or(const std::string& key, long long fallback) const {
  return has(key) ? integer(key) : fallback;
}

double YamlObject::real(const std::string& key) const {
  const auto n = get(key);
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v))
    type_error(key, "a finite number");
  return v;
}

double YamlObject::real_in(const std::string& key, double lo, double hi, double fallback) const {
  const double v = real_or(key, fallback);
  if (v < lo || v > hi) {
    throw UsageError(fmt::format("{}: key '{}' is {:g}; expected a number from {} to {}", origin_, key, v,
                                 format_plain_number(lo), format_plain_number(hi)));
  }
  return v;
}

long long YamlObject::integer_in(const std::string& key, long long lo, long long hi,
                                 long long fallback) const {
  const long long v = integer_or(key, fallback);
  if (v < lo || v > hi) {
    throw UsageError(
        fmt::format("{}: key '{}' is {}; expected a whole number from {} to {}", origin_, key, v, lo, hi));
  }
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
