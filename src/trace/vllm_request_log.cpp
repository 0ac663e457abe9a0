// The request logger's lines, one at a time: which kind, its request id, its time, its token ids.
#include "trace/vllm_request_log.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/rng.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

constexpr auto npos = std::string_view::npos;

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

struct Marker {
  VllmLogLineKind kind;
  std::size_t at = npos, body = 0;  // where the message starts; where its fields start
  std::string_view id;
};

// The first "<head><id><tail>" at a word's start: the id is a run of non-blank characters, and a
// tail that starts with ':' follows the id with no blank (vLLM writes "Received request ID: params").
Marker find_marker(std::string_view line, VllmLogLineKind kind, std::string_view head,
                   std::string_view tail) {
  for (auto at = line.find(head); at != npos; at = line.find(head, at + 1)) {
    if (at > 0 && !blank(line[at - 1])) continue;
    auto end = at + head.size();
    while (end < line.size() && !blank(line[end])) ++end;
    auto id = line.substr(at + head.size(), end - at - head.size());
    if (tail.front() == ':') {
      if (id.size() < 2 || id.back() != ':') continue;
      id.remove_suffix(1);
      --end;
    }
    if (id.empty() || line.substr(end, tail.size()) != tail) continue;
    return {kind, at, end + tail.size(), id};
  }
  return {kind, npos, 0, {}};
}

// "HH:MM:SS" with an optional ",mmm" or ".ffffff": seconds into the day.
std::optional<double> clock_time(std::string_view t) {
  if (t.size() < 8 || t[2] != ':' || t[5] != ':') return std::nullopt;
  for (const int i : {0, 1, 3, 4, 6, 7})
    if (!digit(t[static_cast<std::size_t>(i)])) return std::nullopt;
  const auto two = [&](std::size_t i) { return (t[i] - '0') * 10 + (t[i + 1] - '0'); };
  const int h = two(0), m = two(3), s = two(6);
  if (h > 23 || m > 59 || s > 60) return std::nullopt;
  double frac = 0;
  if (t.size() > 8) {
    if ((t[8] != ',' && t[8] != '.') || t.size() == 9 || t.size() > 18) return std::nullopt;
    double scale = 0.1;
    for (std::size_t i = 9; i < t.size(); ++i, scale /= 10) {
      if (!digit(t[i])) return std::nullopt;
      frac += (t[i] - '0') * scale;
    }
  }
  return h * 3600.0 + m * 60.0 + s + frac;
}

// Days from 1970-01-01 to the date (a year from 1970 to 2200).
std::optional<double> epoch_days(int y, int m, int d) {
  static constexpr int kBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  const auto leap = [](int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; };
  if (y < 1970 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  long days = 0;
  for (int year = 1970; year < y; ++year) days += leap(year) ? 366 : 365;
  days += kBefore[m - 1] + d - 1 + (m > 2 && leap(y) ? 1 : 0);
  return static_cast<double>(days);
}

// "DD" digits at t[i..i+1].
int two_digits(std::string_view t, std::size_t i) {
  return digit(t[i]) && digit(t[i + 1]) ? (t[i] - '0') * 10 + (t[i + 1] - '0') : -1;
}

// One stamp from two words: "MM-DD hh:mm:ss" (vLLM) or "YYYY-MM-DD hh:mm:ss,mmm" (Python's asctime).
std::optional<VllmLogTime> dated_time(std::string_view date, std::string_view clock) {
  const auto sod = clock_time(clock);
  if (!sod) return std::nullopt;
  if (date.size() == 5 && date[2] == '-') {
    const int m = two_digits(date, 0), d = two_digits(date, 3);
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
    return VllmLogTime{false, *sod, m, d};
  }
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  const int y = two_digits(date, 0) * 100 + two_digits(date, 2);
  const auto days = epoch_days(y, two_digits(date, 5), two_digits(date, 8));
  if (two_digits(date, 0) < 0 || two_digits(date, 2) < 0 || !days) return std::nullopt;
  return VllmLogTime{true, *days * 86400 + *sod, 0, 0};
}

// "%(created).6f": 9 to 11 digits, a point and 1 to 9 digits.
std::optional<VllmLogTime> epoch_time(std::string_view w) {
  const auto point = w.find('.');
  if (point == npos || point < 9 || point > 11 || w.size() - point < 2 || w.size() - point > 10)
    return std::nullopt;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (i != point && !digit(w[i])) return std::nullopt;
  return VllmLogTime{true, std::strtod(std::string(w).c_str(), nullptr), 0, 0};
}

// The first time among the words before the message.
std::optional<VllmLogTime> prefix_time(std::string_view prefix) {
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < prefix.size();) {
    while (i < prefix.size() && blank(prefix[i])) ++i;
    const auto start = i;
    while (i < prefix.size() && !blank(prefix[i])) ++i;
    if (i > start) words.push_back(prefix.substr(start, i - start));
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (const auto t = epoch_time(words[i])) return t;
    if (i + 1 < words.size())
      if (const auto t = dated_time(words[i], words[i + 1])) return t;
  }
  return std::nullopt;
}

// A Python str's repr (or None) from `at`: the position after it; npos when the line ends inside it.
// Counts the text's characters (an escape is one, a UTF-8 sequence one) into `chars`.
std::size_t skip_repr(std::string_view s, std::size_t at, std::int64_t& chars, const std::string& where) {
  chars = 0;
  if (s.substr(at, 4) == "None") return at + 4;
  if (at >= s.size() || (s[at] != '\'' && s[at] != '"'))
    throw UsageError(fmt::format("{}: a request-log line whose text is not a quoted string or None", where));
  const char quote = s[at];
  for (auto i = at + 1; i < s.size(); ++i) {
    if (s[i] == quote) return i + 1;
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++chars;
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char e = s[++i];
      i += e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
    }
  }
  return npos;
}

UsageError cut_line(const std::string& where, std::string_view what) {
  return UsageError(fmt::format(
      "{}: the {} does not end on this line: the line was cut; expected whole request-log lines (a log "
      "shipper's line limit cuts them, such as Docker's 16 KiB; and leave vLLM's --max-log-len unset)",
      where, what));
}

// A token id list from `at` ("[1, 2]" or "None"): its length, each id passed to `each`.
template <typename Each>
std::size_t read_ids(std::string_view s, std::size_t at, const std::string& where, std::string_view what,
                     std::int64_t& count, bool& given, Each each) {
  count = 0;
  given = s.substr(at, 1) == "[";
  if (!given) {
    if (s.substr(at, 4) == "None") return at + 4;
    throw UsageError(fmt::format("{}: the {} is not a list of token ids or None", where, what));
  }
  for (auto i = at + 1; i < s.size();) {
    while (i < s.size() && (blank(s[i]) || s[i] == ',')) ++i;
    if (i == s.size()) break;  // the line ends after a comma: cut, not a bad id
    if (s[i] == ']') return i + 1;
    std::uint64_t id = 0;
    const auto start = i;
    for (; i < s.size() && digit(s[i]) && i - start < 19; ++i)
      id = id * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (i == start || (i < s.size() && digit(s[i])))
      throw UsageError(fmt::format("{}: the {} holds '{}', not a token id", where, what,
                                   printable_text(s.substr(start, 12))));
    if (++count > kMaxTraceTokens)
      throw UsageError(fmt::format("{}: the {} holds more than {} ids", where, what, kMaxTraceTokens));
    each(id);
  }
  throw cut_line(where, what);
}

// SamplingParams' "max_tokens=N" (its repr: vllm/sampling_params.py, __repr__), or none. Quoted
// strings are stepped over: a stop string may hold the text "max_tokens=".
std::optional<std::int64_t> max_tokens(std::string_view s, std::size_t at) {
  constexpr std::string_view kKey = ", max_tokens=";
  while (at < s.size()) {
    if (s[at] == '\'' || s[at] == '"') {
      std::int64_t chars = 0;
      at = skip_repr(s, at, chars, "");
      continue;
    }
    if (s.substr(at, kKey.size()) == kKey) {
      auto i = at + kKey.size();
      std::int64_t v = 0;
      for (; i < s.size() && digit(s[i]) && i - at < kKey.size() + 12; ++i) v = v * 10 + (s[i] - '0');
      if (i > at + kKey.size() && i < s.size() && (s[i] == ',' || s[i] == ')')) return v;
    }
    ++at;
  }
  return std::nullopt;
}

// "prompt: <repr>, prompt_token_ids: [...]": the length, and block id k = the hash of the tokens up
// to the end of block k, so equal leading ids mean an equal prefix.
void read_details(std::string_view s, std::size_t at, std::int64_t block_tokens, VllmLogLine& out,
                  const std::string& where) {
  const bool no_text = s.substr(at, 4) == "None";  // a prompt given as token ids
  at = skip_repr(s, at, out.prompt_chars, where);
  if (at == npos) throw cut_line(where, "prompt");
  if (no_text) out.prompt_chars = -1;
  constexpr std::string_view kIds = ", prompt_token_ids: ";
  if (s.substr(at, kIds.size()) != kIds) {
    // vLLM before PR #26713 (October 2025) logged one INFO line: "Received request ID: prompt: %r,
    // params: %s, prompt_token_ids: %s, ..." ("sampling_params" in older releases).
    if (s.substr(at, 10) != ", params: " && s.substr(at, 19) != ", sampling_params: ")
      throw UsageError(fmt::format("{}: no 'prompt_token_ids' after the prompt", where));
    out.max_tokens = max_tokens(s, at);
    at = s.find(kIds, at);
    if (at == npos) throw cut_line(where, "request's params");
  }
  std::uint64_t h = 0x6b766265'6e636821ULL;  // any fixed seed
  std::int64_t in_block = 0;
  read_ids(s, at + kIds.size(), where, "prompt_token_ids list", out.tokens, out.has_ids,
           [&](std::uint64_t id) {
             h = hash_mix(h, id);
             if (++in_block == block_tokens) {
               out.block_ids.push_back(h >> 2);  // kvbench's recorded ids lie below 2^62
               in_block = 0;
             }
           });
  if (in_block > 0) out.block_ids.push_back(h >> 2);
}

}  // namespace

std::optional<VllmLogLine> parse_vllm_log_line(std::string_view line, std::int64_t block_tokens,
                                               const std::string& where) {
  Marker m = find_marker(line, VllmLogLineKind::kDetails, "Request ", " details: prompt: ");
  for (const auto& other :
       {find_marker(line, VllmLogLineKind::kDetails, "Received request ", ": prompt: "),
        find_marker(line, VllmLogLineKind::kReceived, "Received request ", ": params: "),
        find_marker(line, VllmLogLineKind::kGenerated, "Generated response ", ": output: ")})
    if (other.at < m.at) m = other;
  if (m.at == npos) return std::nullopt;
  VllmLogLine out;
  out.kind = m.kind;
  out.id = std::string(m.id);
  const auto time = prefix_time(line.substr(0, m.at));
  if (!time) {
    throw UsageError(
        fmt::format("{}: a vLLM request-log line with no time before its message; expected epoch seconds "
                    "('%(created).6f'), 'YYYY-MM-DD hh:mm:ss,mmm' or vLLM's 'MM-DD hh:mm:ss'",
                    where));
  }
  out.time = *time;
  if (m.kind == VllmLogLineKind::kDetails) {
    read_details(line, m.body, block_tokens, out, where);
  } else if (m.kind == VllmLogLineKind::kReceived) {
    out.max_tokens = max_tokens(line, m.body);
  } else {
    std::int64_t chars = 0;
    const auto at = skip_repr(line, m.body, chars, where);
    constexpr std::string_view kIds = ", output_token_ids: ";
    if (at == npos) throw cut_line(where, "output text");
    if (line.substr(at, kIds.size()) == kIds)
      read_ids(line, at + kIds.size(), where, "output_token_ids list", out.tokens, out.has_ids,
               [](std::uint64_t) {});
  }
  return out;
}

std::optional<std::int64_t> logged_max_log_len(std::string_view line) {
  constexpr std::string_view kKey = "'max_log_len': ";
  if (line.find("non-default args: ") == npos) return std::nullopt;
  const auto at = line.find(kKey);
  if (at == npos || at + kKey.size() >= line.size() || !digit(line[at + kKey.size()])) return std::nullopt;
  return std::strtoll(std::string(line.substr(at + kKey.size(), 12)).c_str(), nullptr, 10);
}

}  // namespace kvb
