#pragma once
// Reading input files (JSON, YAML, text) with errors that name them (exit 2, never an exception
// escaping).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvb {

// Size caps (README: Input limits): no input kvbench reads is near them, and /dev/zero or a
// runaway file stops at the cap instead of filling memory.
inline constexpr std::size_t kMaxTextInputBytes = 4u << 20;     // YAML scenarios, calibration, config.json
inline constexpr std::size_t kMaxResultInputBytes = 64u << 20;  // kvbench and Google Benchmark result JSON

// The whole file, at most `max_bytes`; UsageError "<what> '<path>': ..." when it cannot be read
// or is larger.
std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t max_bytes = kMaxTextInputBytes);

// `what` prefixes the message, e.g. "--link-profile 'x.json'" or "x.json".
nlohmann::json read_json_file(const std::string& path, const std::string& what,
                              std::size_t max_bytes = kMaxResultInputBytes);

// Parses `text` as nlohmann::json::parse does (its parse_error escapes), and refuses an object that
// repeats a key (the library keeps the last silently): UsageError "<what>: key 'K' appears twice ...".
nlohmann::json parse_json_without_repeated_keys(const std::string& text, const std::string& what);

// A JSON library error as an operator reads it: its message without the library's
// "[json.exception.type_error.302] " tag ("key 'samples' not found", "type must be number, but is string").
std::string json_error_text(const nlohmann::json::exception& e);

// The one way a result document becomes text: a string that is not UTF-8 (a path's raw bytes that
// reached a label) is spelled as core/path_text does, so no document is refused by the dump (an
// internal error) and none carries a byte JSON cannot. Ends with a newline.
std::string json_text(const nlohmann::json& doc, int indent);

// One reading rule for numbers in result files: the field must be a number in [lo, hi] (finite);
// an integer field must also be whole and is read into 64 bits, so nothing narrows or wraps.
// UsageError "<what>: field '<key>' ..." otherwise.
double json_number_in(const nlohmann::json& j, const char* key, double lo, double hi,
                      const std::string& what);
std::int64_t json_integer_in(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
                             const std::string& what);
// The same for an optional field: `fallback` when it is absent.
double json_number_or(const nlohmann::json& j, const char* key, double lo, double hi, double fallback,
                      const std::string& what);
std::int64_t json_integer_or(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
                             std::int64_t fallback, const std::string& what);

// One result document's fields read by the rules above, each error naming `where`; an optional
// field that is absent reads as 0, "" or no lines (the sim and size document readers).
class JsonFields {
 public:
  explicit JsonFields(std::string where) : where_(std::move(where)) {}
  std::int64_t count(const nlohmann::json& j, const char* key, std::int64_t hi) const {
    return json_integer_or(j, key, 0, hi, 0, where_);
  }
  double real(const nlohmann::json& j, const char* key, double hi) const {
    return json_number_or(j, key, 0, hi, 0, where_);
  }
  double required(const nlohmann::json& j, const char* key, double hi) const {
    return json_number_in(j, key, 0, hi, where_);
  }
  // Required, in [lo, hi]: a signed figure (a gain), or a whole one.
  double in(const nlohmann::json& j, const char* key, double lo, double hi) const {
    return json_number_in(j, key, lo, hi, where_);
  }
  std::int64_t integer(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi) const {
    return json_integer_in(j, key, lo, hi, where_);
  }
  // Absent or null: none; else in [lo, hi].
  std::optional<double> maybe(const nlohmann::json& j, const char* key, double lo, double hi) const;
  const nlohmann::json& object(const nlohmann::json& j, const char* key) const;  // required object
  std::string text(const nlohmann::json& j, const char* key) const;              // absent or null: ""
  bool flag(const nlohmann::json& j, const char* key) const;                     // required: true or false
  std::vector<std::string> lines(const nlohmann::json& j, const char* key) const;
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

// The document's "schema" string; `otherwise` when it is not an object or has no string schema
// (json::value() would throw a type error on {"schema": 1}).
std::string schema_of(const nlohmann::json& doc, const std::string& otherwise = "");

}  // namespace kvb
