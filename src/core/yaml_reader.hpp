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

  // Parses text; throws UsageError "<origin>: malformed YAML: ..." on a syntax error.
  static YamlObject parse(const std::string& text, const std::string& origin);

  bool has(const std::string& key) const;
  std::string str(const std::string& key) const;
  std::string str_or(const std::string& key, const std::string& fallback) const;
  long long integer(const std::string& key) const;
  long long integer_or(const std::string& key, long long fallback) const;
  double real(const std::string& key) const;
  double real_or(const std::string& key, double fallback) const;
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
