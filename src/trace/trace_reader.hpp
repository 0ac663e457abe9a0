#pragma once
// Reads a request trace one line at a time, so a trace of millions of requests streams from disk.
// Formats, detected from the first record:
//  * Mooncake JSONL (FAST '25; NVIDIA AIPerf's mooncake_trace): {"timestamp": ms, "input_length",
//    "output_length", "hash_ids": [...]}, one hash per `block_tokens` tokens (default 512);
//  * kvbench JSONL: {"arrival_s", "prompt_tokens", "output_tokens"} with either "hash_ids" or
//    "session" (+ "turn"): a session's turns share its earlier context as their prefix;
//  * CSV with a header naming arrival, prompt and output columns (the Azure LLM inference trace's
//    TIMESTAMP, ContextTokens, GeneratedTokens): no reuse recorded, which TraceInfo says;
//  * NVIDIA AIPerf's profile_export.jsonl (trace/aiperf_records): a benchmark client's record of
//    each request it sent, read whole and put in start order; no reuse recorded;
//  * GuideLLM's benchmarks.json (trace/guidellm_report): one JSON document, not a line per
//    request, read whole (at most kMaxTraceDocumentBytes) and put in start order; no reuse recorded;
//  * vLLM's request log (trace/vllm_request_log): found when the first line is neither JSON nor a
//    CSV header and a line of the file is the request logger's; read whole, matched by request id
//    and put in arrival order, each prompt's token ids hashed into block ids.
//  * inference-perf's per_request_lifecycle_metrics.json (trace/inference_perf_records): one JSON
//    list, read whole (the same bound) and put in start order; no reuse recorded.
//  * `vllm bench serve --save-result --save-detailed` JSON (trace/vllm_bench_results): one JSON
//    object, read whole; start_times, else arrivals drawn at its request_rate; no reuse recorded.
// An llm-d-benchmark report (trace/llmd_report) holds aggregates, not requests: refused, saying so.
// Every bad record is a UsageError "<file>:<line>: ...".
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/trace_request.hpp"
#include "trace/vllm_request_log.hpp"

namespace kvb {

enum class TraceFormat {
  kMooncake,
  kKvbench,
  kCsv,
  kAiperf,
  kGuidellm,
  kVllmLog,
  kInferencePerf,
  kVllmBench
};
std::string to_string(TraceFormat f);

struct TraceOptions {
  std::int64_t block_tokens = 512;  // --trace-block-tokens: tokens per hash id
  double speed = 1.0;               // --trace-speed: arrival times divided by this
  double sample = 1.0;              // --trace-sample: share of prefix trees kept (by the first two blocks)
  std::int64_t limit = 0;           // --trace-limit: at most this many requests (0 = all)
};

// A trace to replay: the file and how to read it (simulate/size --trace).
struct TraceInput {
  std::string path;
  TraceOptions options;
};

// simulate and size read their trace once per run: a pipe or a device, which can be read only
// once, is refused (UsageError naming the path and what is accepted). `kvbench trace` reads once.
void require_rereadable_trace(const std::string& path);

// Arrivals past this many seconds (after --trace-speed) are refused: 31 years, and a double still
// holds them to a tenth of a microsecond, so a step time is never lost in the arrival's rounding.
inline constexpr double kMaxTraceSeconds = 1e9;

// Limits on one trace line and on the numbers it carries: no request has more tokens than this.
inline constexpr std::size_t kMaxTraceLineBytes = 16u << 20;
inline constexpr std::int64_t kMaxTraceTokens = 100'000'000;
// Block ids kvbench makes up for a request (CSV lines, sessions): at most this many per request,
// 8.4M tokens at Mooncake's 512 (more than any served context but one), and below the 2^20 ids
// each line or session numbers its blocks in.
inline constexpr std::int64_t kMaxGeneratedBlocks = 16'384;

// Reads with poll() on a pipe or a FIFO, so SIGINT/SIGTERM stop a read that waits for a writer:
// the reader then throws Interrupted (core/interrupt).
class TraceReader {
 public:
  TraceReader(const std::string& path, const TraceOptions& options);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;
  // The next request kept by --trace-sample and --trace-limit; false at the end.
  bool next(TraceRequest& out);
  TraceFormat format() const { return format_; }
  bool reuse_recorded() const {
    return format_ == TraceFormat::kMooncake || format_ == TraceFormat::kKvbench ||
           format_ == TraceFormat::kVllmLog;
  }
  std::int64_t lines_read() const { return line_number_; }
  std::int64_t skipped_by_sample() const { return skipped_; }
  // A client's failed (AIPerf, GuideLLM, inference-perf) or incomplete (GuideLLM) requests: not
  // replayed.
  std::int64_t failed_requests() const { return failed_; }
  // A vLLM request log: outputs taken from max_tokens, prompts left out, arrivals to the second.
  const VllmLogFacts& vllm_log_facts() const { return vllm_facts_; }

 private:
  bool read_record(TraceRequest& out);
  bool parse_line(const std::string& line, TraceRequest& out);
  bool parse_csv(const std::string& line, TraceRequest& out, const std::string& where);
  void detect_format();
  void read_first_record();
  bool read_csv_header(const std::string& first);  // false: not a header naming the three columns
  void read_vllm_log(std::int64_t first_line);
  void read_aiperf();
  void read_guidellm(const nlohmann::json& doc);        // a GuideLLM report, in start order
  void read_inference_perf(const nlohmann::json& doc);  // an inference-perf report, in start order
  void read_vllm_bench(const nlohmann::json& doc);      // vllm bench serve's result, in start order
  void read_document(const std::string& text);          // a whole-file JSON document: which one
  void refuse_yaml_report(const std::string& first);    // an llm-d-benchmark report: refused
  std::string read_rest();                              // the file from buf_pos_ on, as one document
  nlohmann::json json_record(const std::string& line, const std::string& where) const;
  bool kept(const TraceRequest& r) const;
  bool next_line(std::string& line);  // false at the end; a line past kMaxTraceLineBytes is refused
  bool fill();                        // more bytes into buf_; false at the end
  double arrival_after_speed(double seconds, const std::string& where) const;

  std::string path_, shown_;  // shown_: the path as messages spell it (core/path_text)
  TraceOptions options_;
  int fd_ = -1;
  bool wait_for_data_ = false;  // a pipe or FIFO: poll before reading
  std::string buf_;
  std::size_t buf_pos_ = 0;
  bool at_end_ = false;
  TraceFormat format_ = TraceFormat::kMooncake;
  std::int64_t line_number_ = 0, returned_ = 0, skipped_ = 0;
  double last_arrival_ = 0;
  std::string pending_;  // the first record, read to detect the format
  bool have_pending_ = false;
  bool reading_first_ = false, first_too_long_ = false;  // a first line past 16 MiB: a document
  int csv_arrival_ = -1, csv_prompt_ = -1, csv_output_ = -1;
  double csv_first_arrival_ = -1;
  std::unordered_map<std::string, std::uint64_t> sessions_;  // session id -> its number
  // A client's record (AIPerf, GuideLLM, inference-perf), read ahead: its block ids are made when
  // it is returned.
  struct Held {
    double arrival_s;
    std::int64_t prompt_tokens, output_tokens, line;
  };
  std::vector<Held> held_;
  std::size_t held_next_ = 0;
  std::int64_t failed_ = 0;
  std::vector<TraceRequest> logged_;  // a vLLM request log's requests, in arrival order
  std::size_t logged_next_ = 0;
  VllmLogFacts vllm_facts_;
};

}  // namespace kvb
