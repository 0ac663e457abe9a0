#include "core/json_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <set>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

enum class ReadResult { kOk, kUnreadable, kDirectory, kTooLarge };

// Reads at most max_bytes + 1 bytes, so a device or an endless file is refused at the cap. A pipe or
// FIFO (<(cat f), a FIFO with no writer yet) is waited on in core's interruptible read: Ctrl-C stops it.
ReadResult read_capped(const std::string& path, std::size_t max_bytes, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno == EISDIR ? ReadResult::kDirectory : ReadResult::kUnreadable;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return ReadResult::kDirectory;
  }
  out.clear();
  std::array<char, 1 << 16> chunk{};
  long n = 0;
  try {
    while (out.size() <= max_bytes &&
           (n = interruptible_read(fd, chunk.data(), chunk.size(), !S_ISREG(st.st_mode))) > 0)
      out.append(chunk.data(), static_cast<std::size_t>(n));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (out.size() > max_bytes) return ReadResult::kTooLarge;
  if (n < 0) return ReadResult::kUnreadable;
  note_input_file(path);
  return ReadResult::kOk;
}

// Every string (values and keys) made printable where it is not UTF-8; returns whether one was.
bool make_printable(nlohmann::json& j) {
  bool changed = false;
  if (j.is_string()) {
    auto& text = j.get_ref<std::string&>();
    if (!is_valid_utf8(text)) {
      text = printable_path(text);
      changed = true;
    }
  } else if (j.is_array()) {
    for (auto& v : j) changed = make_printable(v) || changed;
  } else if (j.is_object()) {
    nlohmann::json fixed = nlohmann::json::object();
    for (auto& [key, value] : j.items()) {
      const bool key_bad = !is_valid_utf8(key);
      changed = make_printable(value) || key_bad || changed;
      fixed[key_bad ? printable_path(key) : key] = std::move(value);
    }
    j = std::move(fixed);
  }
  return changed;
}

std::string cap_text(std::size_t max_bytes) { return fmt::format("{} MiB", max_bytes >> 20); }

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  std::string text;
  switch (read_capped(path, max_bytes, text)) {
    case ReadResult::kOk:
      return text;
    case ReadResult::kDirectory:
      throw UsageError(fmt::format("{} '{}': is a directory; expected a file", what, path));
    case ReadResult::kTooLarge:
      throw UsageError(fmt::format("{} '{}': larger than {}; expected a file below that size", what, path,
                                   cap_text(max_bytes)));
    case ReadResult::kUnreadable:
      break;
  }
  throw UsageError(fmt::format("{} '{}': cannot read the file", what, path));
}

nlohmann::json read_json_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  std::string text;
  switch (read_capped(path, max_bytes, text)) {
    case ReadResult::kOk:
      break;
    case ReadResult::kDirectory:
      throw UsageError(fmt::format("{}: is a directory; expected a kvbench JSON result file", what));
    case ReadResult::kTooLarge:
      throw UsageError(fmt::format("{}: larger than {}; expected a result file below that size", what,
                                   cap_text(max_bytes)));
    case ReadResult::kUnreadable:
      throw UsageError(fmt::format("{}: cannot read the file (expected a readable JSON file)", what));
  }
  try {
    // A key twice is refused, not resolved to the last: a reader would draw what the writer did not write.
    return parse_json_without_repeated_keys(text, what);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: not valid JSON ({})", what, json_error_text(e)));
  }
}

nlohmann::json parse_json_without_repeated_keys(const std::string& text, const std::string& what) {
  std::vector<std::set<std::string>> open;  // the keys read so far in each object being read
  std::string repeated;
  const auto track = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      open.emplace_back();
    } else if (event == Event::object_end && !open.empty()) {
      open.pop_back();
    } else if (event == Event::key && !open.empty() && repeated.empty() &&
               !open.back().insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  auto doc = nlohmann::json::parse(text, track);
  if (!repeated.empty()) {
    throw UsageError(fmt::format("{}: key '{}' appears twice in one object; expected each key once", what,
                                 printable_text(repeated)));
  }
  return doc;
}

std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string text = e.what();
  const auto tag_end = text.find("] ");
  return text.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos ? text.substr(tag_end + 2)
                                                                                : text;
}

std::string json_text(const nlohmann::json& doc, int indent) {
  try {
    return doc.dump(indent) + "\n";
  } catch (const nlohmann::json::type_error&) {  // 316: a string that is not UTF-8
    auto copy = doc;
    make_printable(copy);
    return copy.dump(indent) + "\n";
  }
}

double json_number_in(const nlohmann::json& j, const char* key, double lo, double hi,
                      const std::string& what) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (!j.is_object() || it == j.end()) throw UsageError(fmt::format("{}: missing field '{}'", what, key));
  if (!it->is_number()) throw UsageError(fmt::format("{}: field '{}' is not a number", what, key));
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    throw UsageError(fmt::format("{}: field '{}' is {:g}; expected a number from {} to {}", what, key, v,
                                 format_plain_number(lo), format_plain_number(hi)));
  }
  return v;
}

std::int64_t json_integer_in(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
                             const std::string& what) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  if (!j.is_object() || it == j.end()) throw UsageError(fmt::format("{}: missing field '{}'", what, key));
  const auto refuse = [&](const std::string& got) {
    return UsageError(
        fmt::format("{}: field '{}' is {}; expected a whole number from {} to {}", what, key, got, lo, hi));
  };
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(v) < lo)
      throw refuse(std::to_string(v));
    return static_cast<std::int64_t>(v);
  }
  if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    if (v < lo || v > hi) throw refuse(std::to_string(v));
    return v;
  }
  if (it->is_number_float()) throw refuse(fmt::format("{:g}", it->get<double>()));
  throw UsageError(fmt::format("{}: field '{}' is not a number", what, key));
}

double json_number_or(const nlohmann::json& j, const char* key, double lo, double hi, double fallback,
                      const std::string& what) {
  return j.is_object() && j.contains(key) ? json_number_in(j, key, lo, hi, what) : fallback;
}

std::int64_t json_integer_or(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
                             std::int64_t fallback, const std::string& what) {
  return j.is_object() && j.contains(key) ? json_integer_in(j, key, lo, hi, what) : fallback;
}

std::string schema_of(const nlohmann::json& doc, const std::string& otherwise) {
  if (!doc.is_object()) return otherwise;
  const auto it = doc.find("schema");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

std::string JsonFields::text(const nlohmann::json& j, const char* key) const {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? std::string() : it->get<std::string>();
}

std::optional<double> JsonFields::maybe(const nlohmann::json& j, const char* key, double lo,
                                        double hi) const {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return json_number_in(j, key, lo, hi, where_);
}

const nlohmann::json& JsonFields::object(const nlohmann::json& j, const char* key) const {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) {
    throw UsageError(fmt::format("{}: field '{}' must be an object", where_, key));
  }
  return *it;
}

bool JsonFields::flag(const nlohmann::json& j, const char* key) const {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) {
    throw UsageError(fmt::format("{}: field '{}' must be true or false", where_, key));
  }
  return it->get<bool>();
}

std::vector<std::string> JsonFields::lines(const nlohmann::json& j, const char* key) const {
  const auto it = j.find(key);
  return it == j.end() ? std::vector<std::string>{} : it->get<std::vector<std::string>>();
}

}  // namespace kvb
