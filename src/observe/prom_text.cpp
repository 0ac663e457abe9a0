// The Prometheus text exposition format, version 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/ (the format prometheus_client's
// generate_latest writes for vLLM, SGLang and LMCache).
#include "observe/prom_text.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "core/errors.hpp"

namespace kvb {
namespace {

struct LineReader {
  const std::string& source;
  std::size_t line_no;
  std::string_view rest;

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(
        fmt::format("{} line {}: {}; expected the Prometheus text format "
                    "(name{{label=\"value\"}} value, # HELP, # TYPE)",
                    source, line_no, what));
  }
  bool eat(char c) {
    if (rest.empty() || rest.front() != c) return false;
    rest.remove_prefix(1);
    return true;
  }
  void skip_blanks() {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  }
};

bool name_start(char c, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}
bool name_char(char c, bool colon) { return name_start(c, colon) || (c >= '0' && c <= '9'); }

// A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, without colons, a label name.
std::string read_name(LineReader& r, bool colon, const char* what) {
  std::size_t n = 0;
  while (n < r.rest.size() && name_char(r.rest[n], colon) && (n > 0 || name_start(r.rest[n], colon))) ++n;
  if (n == 0) r.fail(fmt::format("no {} where one was expected", what));
  std::string name(r.rest.substr(0, n));
  r.rest.remove_prefix(n);
  return name;
}

// A label value between double quotes, with the escapes \\, \" and \n.
std::string read_label_value(LineReader& r) {
  if (!r.eat('"')) r.fail("a label value must be in double quotes");
  std::string value;
  while (!r.rest.empty()) {
    const char c = r.rest.front();
    r.rest.remove_prefix(1);
    if (c == '"') return value;
    if (c != '\\') {
      value += c;
      continue;
    }
    if (r.rest.empty()) break;
    const char e = r.rest.front();
    r.rest.remove_prefix(1);
    if (e == 'n')
      value += '\n';
    else if (e == '\\' || e == '"')
      value += e;
    else
      r.fail(fmt::format("'\\{}' is not an escape a label value may hold (\\\\, \\\", \\n)", e));
  }
  r.fail("a label value is not closed by '\"'");
}

PromLabels read_labels(LineReader& r) {
  PromLabels labels;
  if (!r.eat('{')) return labels;
  std::set<std::string> seen;
  for (;;) {
    r.skip_blanks();
    if (r.eat('}')) return labels;
    auto name = read_name(r, false, "label name");
    r.skip_blanks();
    if (!r.eat('=')) r.fail(fmt::format("label '{}' has no '='", name));
    r.skip_blanks();
    auto value = read_label_value(r);
    if (!seen.insert(name).second) r.fail(fmt::format("label '{}' appears twice", name));
    labels.emplace_back(std::move(name), std::move(value));
    r.skip_blanks();
    if (r.eat('}')) return labels;
    if (!r.eat(',')) r.fail("labels must be separated by ',' and closed by '}'");
  }
}

std::string_view next_token(LineReader& r) {
  r.skip_blanks();
  std::size_t n = 0;
  while (n < r.rest.size() && r.rest[n] != ' ' && r.rest[n] != '\t') ++n;
  auto token = r.rest.substr(0, n);
  r.rest.remove_prefix(n);
  return token;
}

// Go's ParseFloat spellings that prometheus_client writes: decimals, exponents, NaN, +Inf, -Inf.
double read_value(LineReader& r) {
  const auto token = next_token(r);
  if (token.empty()) r.fail("a sample has no value");
  if (token == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (token == "+Inf" || token == "Inf") return std::numeric_limits<double>::infinity();
  if (token == "-Inf") return -std::numeric_limits<double>::infinity();
  auto digits = token;
  if (digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || std::isnan(value) || std::isinf(value))
    r.fail(fmt::format("'{}' is not a sample value (a number, NaN, +Inf or -Inf)", token));
  return value;
}

void read_comment(LineReader& r, PromExposition& e, std::set<std::string>& typed) {
  r.skip_blanks();
  const auto keyword = next_token(r);
  if (keyword != "HELP" && keyword != "TYPE") return;  // any other comment is free text
  r.skip_blanks();
  const auto name = read_name(r, true, "metric name");
  if (!r.rest.empty() && r.rest.front() != ' ' && r.rest.front() != '\t') r.fail("a bad metric name");
  r.skip_blanks();
  auto& family = e.families[name];
  if (keyword == "HELP") {
    family.help = std::string(r.rest);
    return;
  }
  const auto type = next_token(r);
  static const std::set<std::string_view> kTypes{"counter", "gauge", "histogram", "summary", "untyped"};
  if (!kTypes.count(type))
    r.fail(fmt::format("'{}' is not a metric type (counter, gauge, histogram, summary, untyped)", type));
  if (!typed.insert(name).second) r.fail(fmt::format("a second # TYPE line for '{}'", name));
  family.type = std::string(type);
}

void read_sample(LineReader& r, PromExposition& e, std::set<std::string>& keys) {
  PromSample s;
  s.name = read_name(r, true, "metric name");
  s.labels = read_labels(r);
  if (r.rest.empty() || (r.rest.front() != ' ' && r.rest.front() != '\t'))
    r.fail(fmt::format("'{}' is not followed by a space and a value", s.name));
  s.value = read_value(r);
  const auto timestamp = next_token(r);
  if (!timestamp.empty()) {
    long long ms = 0;
    const auto [end, ec] = std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), ms);
    if (ec != std::errc() || end != timestamp.data() + timestamp.size())
      r.fail(fmt::format("'{}' is not a timestamp (integer milliseconds)", timestamp));
  }
  r.skip_blanks();
  if (!r.rest.empty()) r.fail("text after the sample's value and timestamp");
  std::string key = s.name;
  for (const auto& [k, v] : s.labels) key += fmt::format("\x1f{}\x1e{}", k, v);
  if (!keys.insert(key).second)
    r.fail(fmt::format("the sample '{}' appears twice with the same labels", s.name));
  e.samples.push_back(std::move(s));
}

}  // namespace

PromExposition parse_prom_text(std::string_view text, const std::string& source) {
  if (text.find('\0') != std::string_view::npos)
    throw UsageError(fmt::format("{}: holds NUL bytes; expected the Prometheus text format", source));
  PromExposition e;
  std::set<std::string> typed;
  std::set<std::string> keys;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    auto line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineReader r{source, line_no, line};
    r.skip_blanks();
    if (r.rest.empty()) continue;
    if (r.eat('#'))
      read_comment(r, e, typed);
    else
      read_sample(r, e, keys);
  }
  if (e.samples.empty())
    throw UsageError(fmt::format("{}: no metric samples; expected the Prometheus text format", source));
  return e;
}

namespace {

bool matches(const PromSample& s, const PromMatch& match) {
  for (const auto& [k, v] : match) {
    bool found = false;
    for (const auto& [sk, sv] : s.labels) found = found || (sk == k && sv == v);
    if (!found) return false;
  }
  return true;
}

// The sum and count of the samples named `name` that carry `match`.
std::pair<double, int> gather(const PromExposition& e, std::string_view name, const PromMatch& match) {
  double sum = 0;
  int n = 0;
  for (const auto& s : e.samples) {
    if (s.name != name || !matches(s, match)) continue;
    sum += s.value;
    ++n;
  }
  return {sum, n};
}

}  // namespace

std::optional<double> prom_counter(const PromExposition& e, std::string_view family, const PromMatch& match) {
  const auto [total, n_total] = gather(e, std::string(family) + "_total", match);
  if (n_total > 0) return total;
  const auto [bare, n_bare] = gather(e, family, match);
  if (n_bare > 0) return bare;
  return std::nullopt;
}

std::optional<double> prom_gauge_sum(const PromExposition& e, std::string_view name, const PromMatch& match) {
  const auto [sum, n] = gather(e, name, match);
  return n > 0 ? std::optional<double>(sum) : std::nullopt;
}

std::optional<double> prom_gauge_mean(const PromExposition& e, std::string_view name,
                                      const PromMatch& match) {
  const auto [sum, n] = gather(e, name, match);
  return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

bool prom_has_prefix(const PromExposition& e, std::string_view prefix) {
  for (const auto& s : e.samples)
    if (std::string_view(s.name).substr(0, prefix.size()) == prefix) return true;
  return false;
}

}  // namespace kvb
