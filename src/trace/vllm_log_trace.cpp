// vLLM's request log as a trace: its lines matched by request id, read whole and put in arrival order.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "trace/trace_reader.hpp"
#include "trace/vllm_request_log.hpp"

namespace kvb {

VllmRequestLog::VllmRequestLog(std::string shown, std::int64_t block_tokens)
    : shown_(std::move(shown)), block_tokens_(block_tokens) {}

void VllmRequestLog::add(std::string_view line, std::int64_t line_number) {
  if (!max_log_len_) {
    max_log_len_ = logged_max_log_len(line);
    max_log_len_line_ = line_number;
  }
  const auto where = fmt::format("{}:{}", shown_, line_number);
  auto parsed = parse_vllm_log_line(line, block_tokens_, where);
  if (!parsed) return;  // the rest of vLLM's log
  if (parsed->kind == VllmLogLineKind::kDetails) {
    if (static_cast<std::int64_t>(entries_.size()) >= kMaxVllmLogRequests) {
      throw UsageError(fmt::format(
          "{}: more than 10,000,000 requests; expected a vLLM request log of at most that many (split it)",
          where));
    }
    // A client may send the same X-Request-Id again: the later lines are the later request's.
    open_[parsed->id] = entries_.size();
    const auto max_tokens = parsed->max_tokens;  // an older vLLM's one line gives it
    entries_.push_back({std::move(*parsed), line_number, max_tokens, {}});
    return;
  }
  const auto it = open_.find(parsed->id);
  if (it == open_.end()) {
    received_only_ += parsed->kind == VllmLogLineKind::kReceived ? 1 : 0;
    return;
  }
  auto& e = entries_[it->second];
  if (parsed->kind == VllmLogLineKind::kReceived && !e.max_tokens) e.max_tokens = parsed->max_tokens;
  // n > 1 logs a response per choice: the first is taken.
  if (parsed->kind == VllmLogLineKind::kGenerated && !e.output && parsed->has_ids) e.output = parsed->tokens;
}

// Each details line's time in seconds on one clock. vLLM's own stamp has no year: the day of the
// year is counted with a 29 February only where a line is stamped 02-29, and a new year begins
// where the month goes back by more than six (December to January; a line a second out of order
// across a month's end is not a new year).
std::vector<double> VllmRequestLog::arrival_seconds() const {
  static constexpr int kBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  bool dated = false, undated = false, leap = false;
  for (const auto& e : entries_) {
    (e.details.time.year_known ? dated : undated) = true;
    leap = leap || (!e.details.time.year_known && e.details.time.month == 2 && e.details.time.day == 29);
  }
  if (dated && undated) {
    throw UsageError(
        fmt::format("trace '{}': request-log lines stamped both with a year and without one (vLLM's 'MM-DD "
                    "hh:mm:ss'); expected one log format",
                    shown_));
  }
  std::vector<double> out;
  int year = 0, previous_month = 0;
  for (const auto& e : entries_) {
    const auto& t = e.details.time;
    if (t.year_known) {
      out.push_back(t.seconds);
      continue;
    }
    if (previous_month - t.month > 6) ++year;
    previous_month = t.month;
    const int day = kBefore[t.month - 1] + t.day - 1 + (leap && t.month > 2 ? 1 : 0);
    out.push_back((year * (leap ? 366.0 : 365.0) + day) * 86400 + t.seconds);
  }
  return out;
}

// --max-log-len N cuts a prompt's text to N characters and its ids to N: prompts as long in
// characters as in ids, at the log's longest, are that cut (no tokenizer makes a token of every
// character of two prompts).
void VllmRequestLog::refuse_cut_prompts() const {
  std::int64_t longest = 0, cut = 0, first = 0;
  for (const auto& e : entries_) longest = std::max(longest, e.details.tokens);
  for (const auto& e : entries_) {
    if (longest > 0 && e.details.tokens == longest && e.details.prompt_chars == longest && cut++ == 0)
      first = e.line;
  }
  if (cut < 2) return;
  throw UsageError(fmt::format(
      "{}:{}: {} prompts are logged as exactly {} characters and {} token ids, the longest in the log: "
      "vLLM's --max-log-len {} cuts them so; expected a log written without --max-log-len",
      shown_, first, cut, longest, longest, longest));
}

std::vector<VllmLoggedRequest> VllmRequestLog::requests() {
  if (entries_.empty() && received_only_ > 0) {
    throw UsageError(fmt::format(
        "trace '{}': a vLLM request log with {} 'Received request' lines and no 'Request ... details' "
        "line: vLLM logs the prompt's token ids at DEBUG only; expected a log written with the request "
        "logger at DEBUG (docs/trace.md)",
        shown_, received_only_));
  }
  if (max_log_len_) {
    throw UsageError(fmt::format(
        "{}:{}: the server ran with --max-log-len {}, which cuts each logged prompt's token ids to {}; "
        "expected a log written without --max-log-len",
        shown_, max_log_len_line_, *max_log_len_, *max_log_len_));
  }
  refuse_cut_prompts();
  return in_arrival_order();
}

std::vector<VllmLoggedRequest> VllmRequestLog::in_arrival_order() {
  const auto seconds = arrival_seconds();
  facts_.whole_seconds = !entries_.empty() && !entries_.front().details.time.year_known;
  std::vector<std::size_t> order(entries_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return seconds[a] < seconds[b]; });
  std::vector<VllmLoggedRequest> out;
  for (const auto i : order) {
    auto& e = entries_[i];
    const auto where = fmt::format("{}:{}", shown_, e.line);
    if (!e.details.has_ids || e.details.tokens == 0) {
      ++facts_.embeds_left_out;  // a prompt given as embeddings: no ids to hash
      continue;
    }
    if (!e.output && !e.max_tokens) {
      throw UsageError(
          fmt::format("{}: request {}: no output length: no 'Generated response' line with token ids and no "
                      "max_tokens in its 'Received request' line; expected one of them",
                      where, e.details.id));
    }
    if (!e.output) ++facts_.output_upper_bound;
    const auto output = e.output ? *e.output : *e.max_tokens;
    if (output > kMaxTraceTokens)
      throw UsageError(fmt::format("{}: request {}: max_tokens {}; expected at most {}", where, e.details.id,
                                   output, kMaxTraceTokens));
    TraceRequest r{seconds[i] - seconds[order.front()], e.details.tokens, output,
                   std::move(e.details.block_ids)};
    out.push_back({std::move(r), e.line});
  }
  facts_.requests = static_cast<std::int64_t>(out.size());
  if (out.empty() && !entries_.empty()) {
    throw UsageError(
        fmt::format("trace '{}': every prompt in the vLLM request log was logged without token ids (given as "
                    "embeddings); expected prompts given as text or token ids",
                    shown_));
  }
  return out;
}

namespace {

constexpr std::uint64_t kFirstRequestWithin = std::uint64_t{64} << 20;

UsageError not_a_trace(const std::string& shown, std::int64_t first_line, const char* within) {
  return UsageError(
      fmt::format("{}:{}: neither a JSON record nor a CSV header naming arrival (TIMESTAMP), prompt "
                  "(ContextTokens) and output (GeneratedTokens) columns, and no line{} is vLLM's request "
                  "log ('Request ID details: ... prompt_token_ids'); expected Mooncake JSONL, kvbench "
                  "JSONL, such a CSV or a vLLM request log",
                  shown, first_line, within));
}

}  // namespace

// The whole log: no line of it need be a request's (a log begins with vLLM's start-up lines).
// `first_line`: the first record's line, which was neither JSON nor a CSV header.
void TraceReader::read_vllm_log(std::int64_t first_line) {
  VllmRequestLog log(shown_, options_.block_tokens);
  std::string line = pending_;
  have_pending_ = false;
  std::uint64_t bytes = 0;
  do {
    bytes += line.size() + 1;
    if (bytes > kMaxVllmRequestLogBytes) {
      throw UsageError(fmt::format(
          "trace '{}': over 64 GiB, and its first line is neither JSON nor a CSV header; expected a vLLM "
          "request log of at most 64 GiB (read whole to match its lines by request id)",
          shown_));
    }
    // Garbage of short lines is not read to 64 GiB: a log's first request comes after its start-up lines.
    if (bytes > kFirstRequestWithin && !log.any_request())
      throw not_a_trace(shown_, first_line, " in its first 64 MiB");
    if (line_number_ % 4096 == 0 && interrupt_requested()) throw Interrupted();  // a long log read whole
    log.add(line, line_number_);
  } while (next_line(line));
  auto requests = log.requests();
  if (requests.empty()) throw not_a_trace(shown_, first_line, "");
  format_ = TraceFormat::kVllmLog;
  vllm_facts_ = log.facts();
  for (auto& r : requests) {
    r.request.arrival_s = arrival_after_speed(r.request.arrival_s, fmt::format("{}:{}", shown_, r.line));
    logged_.push_back(std::move(r.request));
  }
}

}  // namespace kvb
