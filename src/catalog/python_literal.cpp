#include "catalog/python_literal.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "core/errors.hpp"

namespace kvb {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '+' || c == '-';
}

class LiteralReader {
 public:
  LiteralReader(std::string_view text, std::string_view what) : t_(text), what_(what) {}

  nlohmann::json value(int depth) {
    if (depth > kMaxLiteralDepth) throw fail(fmt::format("nested deeper than {} levels", kMaxLiteralDepth));
    skip_space();
    if (at_ >= t_.size()) throw fail("cut short where a value was expected");
    const char c = t_[at_];
    if (c == '{') return dict(depth);
    if (c == '[') return sequence(depth, ']');
    if (c == '(') return sequence(depth, ')');
    if (c == '\'' || c == '"') return string();
    if (c == '<') return opaque_angle();
    return word();
  }

 private:
  UsageError fail(const std::string& why) const {
    return UsageError(fmt::format("{}: {} (at byte {})", what_, why, at_ + 1));
  }
  void skip_space() {
    while (at_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[at_])) != 0) ++at_;
  }
  // After an item: ',' (then maybe the closer, as in a 1-tuple) or the closer. True at the closer.
  bool item_end(char closer) {
    skip_space();
    if (at_ >= t_.size()) throw fail(fmt::format("cut short: expected ',' or '{}'", closer));
    if (t_[at_] == closer) return ++at_, true;
    if (t_[at_] != ',') throw fail(fmt::format("expected ',' or '{}'", closer));
    ++at_;
    skip_space();
    if (at_ < t_.size() && t_[at_] == closer) return ++at_, true;
    return false;
  }

  nlohmann::json dict(int depth) {
    auto out = nlohmann::json::object();
    ++at_;
    skip_space();
    if (at_ < t_.size() && t_[at_] == '}') return ++at_, out;
    for (;;) {
      const auto key = value(depth + 1);
      skip_space();
      if (at_ >= t_.size() || t_[at_] != ':') throw fail("expected ':' after a key");
      ++at_;
      out[key.is_string() ? key.get<std::string>()
                          : key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)] =
          value(depth + 1);
      if (item_end('}')) return out;
    }
  }

  nlohmann::json sequence(int depth, char closer) {
    auto out = nlohmann::json::array();
    ++at_;
    skip_space();
    if (at_ < t_.size() && t_[at_] == closer) return ++at_, out;
    for (;;) {
      out.push_back(value(depth + 1));
      if (item_end(closer)) return out;
    }
  }

  nlohmann::json string() {
    const char quote = t_[at_++];
    std::string out;
    while (at_ < t_.size() && t_[at_] != quote) {
      char c = t_[at_++];
      if (c == '\\' && at_ < t_.size()) {
        const char e = t_[at_++];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        if (e != 'n' && e != 't' && e != 'r' && e != '\\' && e != '\'' && e != '"') out.push_back('\\');
      }
      out.push_back(c);
    }
    if (at_ >= t_.size()) throw fail("a string cut short");
    ++at_;
    return out;
  }

  // Skips a quoted string from its opening quote (inside an opaque value).
  void skip_string() {
    const char quote = t_[at_++];
    while (at_ < t_.size() && t_[at_] != quote) at_ += (t_[at_] == '\\') ? 2 : 1;
    if (at_ >= t_.size()) throw fail("a string cut short");
    ++at_;
  }

  // From an opening bracket to its match, strings skipped: a call's arguments kept as text.
  void skip_balanced() {
    int open = 0;
    do {
      if (at_ >= t_.size()) throw fail("cut short inside brackets");
      const char c = t_[at_];
      if (c == '\'' || c == '"') {
        skip_string();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++open;
      if (c == ')' || c == ']' || c == '}') --open;
      ++at_;
    } while (open > 0);
  }

  nlohmann::json opaque_angle() {
    const auto start = at_;
    while (at_ < t_.size() && t_[at_] != '>') {
      if (t_[at_] == '\'' || t_[at_] == '"') {
        skip_string();
      } else {
        ++at_;
      }
    }
    if (at_ >= t_.size()) throw fail("a <...> value cut short");
    ++at_;
    return std::string(t_.substr(start, at_ - start));
  }

  nlohmann::json word() {
    const auto start = at_;
    while (at_ < t_.size() && is_word_char(t_[at_])) ++at_;
    if (at_ == start) throw fail(fmt::format("unexpected character '{}'", t_[at_]));
    const auto w = t_.substr(start, at_ - start);
    if (at_ < t_.size() && t_[at_] == '(') {  // a call: Name(...), kept as text
      skip_balanced();
      return std::string(t_.substr(start, at_ - start));
    }
    if (w == "True" || w == "False") return w == "True";
    if (w == "None") return nullptr;
    std::int64_t i = 0;
    if (const auto r = std::from_chars(w.data(), w.data() + w.size(), i);
        r.ec == std::errc() && r.ptr == w.data() + w.size())
      return i;
    double d = 0;
    if (const auto r = std::from_chars(w.data(), w.data() + w.size(), d);
        r.ec == std::errc() && r.ptr == w.data() + w.size() && std::isfinite(d))
      return d;
    return std::string(w);  // a bare name (inf, nan, an identifier)
  }

  std::string_view t_;
  std::string_view what_;
  std::size_t at_ = 0;
};

}  // namespace

nlohmann::json parse_python_literal(std::string_view text, std::string_view what) {
  return LiteralReader(text, what).value(0);
}

}  // namespace kvb
