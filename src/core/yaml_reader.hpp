#pragma once
// Strict reading of YAML mappings: every key must be known, every value of the right type, and
// every error names the file and the key. Used for the catalogs and scenario files.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kvb {

class YamlObject {
 public:
  // `origin` names the file (or embedded path) in messages.
  YamlObject(YAML::Node node, std::string origin);

  // Parses text; throws UsageError "<origin>: malformed YAML: ..." on a syntax error, a key given
  // twice, a second document, a string that is not UTF-8, or more than kMaxNodes nodes once aliases are
  // expanded.
  static YamlObject parse(const std::string& text, const std::string& origin);

  // The checks parse() makes, for a tree built another way (a --set value).
  static void check_tree(const YAML::Node& node, const std::string& origin);

  // A "billion laughs" alias bomb expands past this at once; no kvbench file comes near it.
  static constexpr std::size_t kMaxNodes = 100'000;

  bool has(const std::string& key) const;
  std::string str(const std::string& key) const;
  std::string str_or(const std::string& key, const std::string& fallback) const;
  long long integer(const std::string& key) const;
  long long integer_or(const std::string& key, long long fallback) const;
  // Finite numbers only: .inf and .nan are refused naming the key.
  double real(const std::string& key) const;
  double real_or(const std::string& key, double fallback) const;
  // The key's number in [lo, hi], or fallback when absent; UsageError naming the key and range.
  double real_in(const std::string& key, double lo, double hi, double fallback) const;
  long long integer_in(const std::string& key, long long lo, long long hi, long long fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::vector<std::string> str_list_or(const std::string& key) const;
  YamlObject object(const std::string& key) const;

  // Throws UsageError naming the first key that no getter asked for, and listing `allowed`.
  void reject_unknown_keys(const std::vector<std::string>& allowed) const;

  const std::string& origin() const { return origin_; }
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node get(const std::string& key) const;
  [[noreturn]] void type_error(const std::string& key, const char* expected) const;

  YAML::Node node_;
  std::string origin_;
};

}  // namespace kvb
