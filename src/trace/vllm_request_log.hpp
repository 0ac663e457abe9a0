#pragma once
// vLLM's request log read as a trace (`vllm serve --enable-log-requests`, the request logger at
// DEBUG). The lines vLLM's RequestLogger writes (vllm/entrypoints/logger.py, log_inputs and
// log_outputs; vLLM's main branch of 2026-05-24, commit 28be48f):
//   DEBUG "Request <id> details: prompt: <repr>, prompt_token_ids: [...], prompt_embeds shape: ..."
//   INFO  "Received request <id>: params: SamplingParams(... max_tokens=N, ...), lora_request: ..."
//   INFO  "Generated response <id>: output: <repr>, output_token_ids: [...], finish_reason: ..."
//         (--enable-log-outputs; a streamed response's lines say "(streaming delta)" or
//         "(streaming complete)" after the id and are not read: deltas with no text are not logged)
// Each line's time, before its message: "%(created).6f" epoch seconds (a logging config),
// Python logging's default "YYYY-MM-DD hh:mm:ss,mmm", or vLLM's own "MM-DD hh:mm:ss" (vllm/logger.py:
// to the second, with no year). Every other line of vLLM's log is skipped.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/trace_request.hpp"

namespace kvb {

enum class VllmLogLineKind { kDetails, kReceived, kGenerated };

// A line's time as logged.
struct VllmLogTime {
  bool year_known = true;  // false: vLLM's "MM-DD hh:mm:ss"
  double seconds = 0;      // since the epoch, or (no year) since the start of the day
  int month = 0, day = 0;  // no year: the stamp's month and day
};

struct VllmLogLine {
  VllmLogLineKind kind = VllmLogLineKind::kDetails;
  std::string id;
  VllmLogTime time;
  bool has_ids = false;     // the token ids were logged (not "None": an embedding, a streamed end)
  std::int64_t tokens = 0;  // details: the prompt's token ids; generated: the output's
  std::vector<std::uint64_t> block_ids;    // details: one per block_tokens of the prompt
  std::optional<std::int64_t> max_tokens;  // received: SamplingParams' max_tokens
  std::int64_t prompt_chars = -1;          // details: the prompt text's characters (-1: None)
};

// A request-logger line, or nullopt for any other line. UsageError "<where>: ..." for one that
// cannot be read: no time before its message, a token id list not closed (a cut line).
// Block id k hashes the prompt's tokens up to the end of block k (core/rng's hash_mix over every
// token, below 2^62): two prompts share leading ids exactly as far as they share whole blocks.
std::optional<VllmLogLine> parse_vllm_log_line(std::string_view line, std::int64_t block_tokens,
                                               const std::string& where);

// The --max-log-len a start-up line states ("non-default args: {... 'max_log_len': N ...}").
std::optional<std::int64_t> logged_max_log_len(std::string_view line);

// What the reader says about the log beside its requests (worded by output/trace/trace_text).
struct VllmLogFacts {
  std::int64_t requests = 0;            // the log's requests with token ids (before --trace-sample, -limit)
  std::int64_t output_upper_bound = 0;  // requests with no logged response: max_tokens taken
  std::int64_t embeds_left_out = 0;     // prompts given as embeddings: no token ids logged
  bool whole_seconds = false;           // stamped by vLLM's own format: arrivals to the second
};

// The log's requests, matched by id across its lines: arrival (the details line's time, from the
// earliest), prompt, block ids, and output (the response's ids, else max_tokens, counted in facts).
struct VllmLoggedRequest {
  TraceRequest request;
  std::int64_t line = 0;  // the details line
};

class VllmRequestLog {
 public:
  VllmRequestLog(std::string shown, std::int64_t block_tokens);
  void add(std::string_view line, std::int64_t line_number);
  bool any_request() const { return !entries_.empty(); }
  // In arrival order. UsageError naming the file for a log with INFO lines only, one written with
  // --max-log-len, or a request whose output length the log does not give.
  std::vector<VllmLoggedRequest> requests();
  const VllmLogFacts& facts() const { return facts_; }

 private:
  struct Entry {
    VllmLogLine details;
    std::int64_t line = 0;
    std::optional<std::int64_t> max_tokens, output;
  };
  std::vector<double> arrival_seconds() const;
  void refuse_cut_prompts() const;
  std::vector<VllmLoggedRequest> in_arrival_order();
  std::string shown_;
  std::int64_t block_tokens_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> open_;  // id -> its latest details line's entry
  std::int64_t received_only_ = 0, max_log_len_line_ = 0;
  std::optional<std::int64_t> max_log_len_;
  VllmLogFacts facts_;
};

// A log is read whole (its requests matched by id and put in arrival order): at most this many
// bytes and this many requests.
inline constexpr std::uint64_t kMaxVllmRequestLogBytes = std::uint64_t{64} << 30;
inline constexpr std::int64_t kMaxVllmLogRequests = 10'000'000;

}  // namespace kvb
