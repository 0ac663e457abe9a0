#include "trace/trace_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "trace/aiperf_records.hpp"
#include "trace/guidellm_report.hpp"
#include "trace/inference_perf_records.hpp"
#include "trace/llmd_report.hpp"
#include "trace/token_count.hpp"
#include "trace/trace_csv.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: a well-spread hash of an id
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Ids kvbench makes up (a session's blocks, a CSV request's own blocks) live in their own range,
// apart from a trace's recorded hash ids.
constexpr std::uint64_t kSessionIds = 1ULL << 62, kPrivateIds = 1ULL << 63;

double seconds_field(const nlohmann::json& j, const char* key, double scale, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw UsageError(fmt::format("{}: '{}' is missing or not a number", where, key));
  const double v = it->get<double>() * scale;
  if (!std::isfinite(v) || v < 0 || v > 1e9) {
    throw UsageError(fmt::format("{}: '{}' is not a time from 0 to 1e9 s", where, key));
  }
  return v;
}

void hash_ids(const nlohmann::json& j, TraceRequest& r, std::int64_t block_tokens, const std::string& where) {
  const auto& ids = j.at("hash_ids");
  if (!ids.is_array()) throw UsageError(fmt::format("{}: 'hash_ids' is not a list", where));
  const auto blocks = (r.prompt_tokens + block_tokens - 1) / block_tokens;
  if (static_cast<std::int64_t>(ids.size()) != blocks) {
    throw UsageError(
        fmt::format("{}: {} hash_ids for {} prompt tokens; expected {} (one per {} tokens: "
                    "--trace-block-tokens)",
                    where, ids.size(), r.prompt_tokens, blocks, block_tokens));
  }
  r.block_ids.clear();
  for (const auto& id : ids) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
        id.get<std::int64_t>() >= static_cast<std::int64_t>(kSessionIds)) {
      throw UsageError(fmt::format("{}: a hash id that is not a whole number from 0 to 2^62", where));
    }
    r.block_ids.push_back(id.get<std::uint64_t>());
  }
}

void own_blocks(TraceRequest& r, std::uint64_t base, std::int64_t block_tokens, const std::string& where) {
  r.block_ids.clear();
  const auto blocks = (r.prompt_tokens + block_tokens - 1) / block_tokens;
  if (blocks > kMaxGeneratedBlocks) {
    throw UsageError(
        fmt::format("{}: a prompt of {} tokens is {} blocks of {} tokens; expected at most {} per request "
                    "(a larger --trace-block-tokens)",
                    where, r.prompt_tokens, blocks, block_tokens, kMaxGeneratedBlocks));
  }
  for (std::int64_t b = 0; b < blocks; ++b)
    r.block_ids.push_back(base | mix(mix(base) ^ static_cast<std::uint64_t>(b)) >> 2);
}

// An empty file, or a CSV of its header alone: no trace to size or replay.
UsageError no_records(const std::string& shown) {
  return UsageError(fmt::format("trace '{}': no records; expected one request per line", shown));
}

}  // namespace

std::string to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::kMooncake:
      return "Mooncake JSONL";
    case TraceFormat::kKvbench:
      return "kvbench JSONL";
    case TraceFormat::kCsv:
      return "CSV (arrival, prompt and output tokens; no reuse recorded)";
    case TraceFormat::kAiperf:
      return "AIPerf profile_export.jsonl: arrivals and lengths, no reuse recorded";
    case TraceFormat::kGuidellm:
      return "GuideLLM benchmarks.json: arrivals and lengths, no reuse recorded";
    case TraceFormat::kVllmLog:
      return "vLLM request log: prompt token ids hashed per block";
    case TraceFormat::kInferencePerf:
      return "inference-perf per_request_lifecycle_metrics.json: arrivals and lengths, no reuse recorded";
    case TraceFormat::kVllmBench:
      return "vllm bench serve result: arrivals and lengths, no reuse recorded";
  }
  return "";
}

void require_rereadable_trace(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
    return;  // the reader says
  throw UsageError(
      fmt::format("--trace '{}': is {}, which can be read only once; expected a regular file (each run "
                  "reads the trace from its start; kvbench trace reads a pipe)",
                  printable_path(path), S_ISFIFO(st.st_mode) ? "a pipe or FIFO" : "a device or socket"));
}

TraceReader::TraceReader(const std::string& path, const TraceOptions& options)
    : path_(path), shown_(printable_path(path)), options_(options) {
  // O_NONBLOCK: opening a FIFO that has no writer yet returns at once; reads then wait in poll().
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0)
    throw UsageError(fmt::format("trace '{}': cannot read the file ({})", shown_, std::strerror(errno)));
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode))
      throw UsageError(fmt::format("trace '{}': is a directory; expected a trace file", shown_));
    wait_for_data_ = !S_ISREG(st.st_mode);
    note_input_file(path);
    detect_format();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

TraceReader::~TraceReader() { ::close(fd_); }

bool TraceReader::fill() {
  char chunk[1 << 16];
  const long n = interruptible_read(fd_, chunk, sizeof chunk, wait_for_data_);
  if (n < 0) throw UsageError(fmt::format("trace '{}': read failed ({})", shown_, std::strerror(errno)));
  buf_.append(chunk, static_cast<std::size_t>(n));
  return n > 0;
}

bool TraceReader::next_line(std::string& line) {
  std::size_t scanned = buf_pos_;
  while (true) {
    const auto nl = buf_.find('\n', scanned);
    const bool whole = nl != std::string::npos;
    if (!whole && buf_.size() - buf_pos_ <= kMaxTraceLineBytes && !at_end_) {
      buf_.erase(0, buf_pos_);
      buf_pos_ = 0;
      scanned = buf_.size();
      if (fill()) continue;
      at_end_ = true;
    }
    const auto end = whole ? nl : buf_.size();
    if (!whole && buf_pos_ == buf_.size()) return false;
    // A first line this long that opens a JSON object or list may be one document (a GuideLLM or
    // inference-perf report).
    const auto opens = buf_.find_first_not_of(" \t\r\xEF\xBB\xBF", buf_pos_);
    if (end - buf_pos_ > kMaxTraceLineBytes && reading_first_ && opens < end &&
        (buf_[opens] == '{' || buf_[opens] == '[')) {
      first_too_long_ = true;
      return false;
    }
    ++line_number_;
    if (end - buf_pos_ > kMaxTraceLineBytes)  // refused at once: /dev/zero has no end of line
      throw UsageError(
          fmt::format("{}:{}: a line longer than 16 MiB; expected one record a line, each at most 16 MiB",
                      shown_, line_number_));
    line.assign(buf_, buf_pos_, end - buf_pos_);
    buf_pos_ = whole ? nl + 1 : buf_.size();
    return true;
  }
}

// The first non-blank line, held as pending (a UTF-8 byte-order mark dropped).
void TraceReader::read_first_record() {
  reading_first_ = true;
  while (next_line(pending_)) {
    if (line_number_ == 1 && pending_.rfind("\xEF\xBB\xBF", 0) == 0) pending_.erase(0, 3);  // a UTF-8 BOM
    if (!trim_copy(pending_).empty()) {
      have_pending_ = true;
      break;
    }
  }
  reading_first_ = false;
  if (!have_pending_ && !first_too_long_) throw no_records(shown_);
}

void TraceReader::detect_format() {
  read_first_record();
  if (first_too_long_) {  // no trace line is this long: one JSON document or nothing
    read_document(read_rest());
    return;
  }
  const auto first = trim_copy(pending_);
  if (first.front() == '[') {  // a JSON list: one document over the whole file
    read_document(pending_ + "\n" + read_rest());
    return;
  }
  if (first.front() == '{') {
    // By the keys the first record holds, not by substrings of its text.
    auto j = nlohmann::json::parse(first, nullptr, false);
    if (j.is_discarded())
      j = nlohmann::json::parse(pending_ + "\n" + read_rest(), nullptr, false);  // over lines
    if (is_guidellm_report(j)) {
      read_guidellm(j);
      return;
    }
    if (is_vllm_bench_result(j)) {
      read_vllm_bench(j);
      return;
    }
    if (is_llmd_report(j)) throw llmd_report_is_no_trace(shown_, llmd_version(j));
    if (is_aiperf_record(j)) {
      format_ = TraceFormat::kAiperf;
      read_aiperf();
      return;
    }
    format_ = j.is_object() && j.contains("hash_ids") && j.contains("timestamp") ? TraceFormat::kMooncake
                                                                                 : TraceFormat::kKvbench;
    return;
  }
  refuse_yaml_report(first);
  if (!read_csv_header(first)) {  // neither JSON nor a CSV header: vLLM's request log, or nothing
    read_vllm_log(line_number_);
    return;
  }
  format_ = TraceFormat::kCsv;
  have_pending_ = false;  // the header is not a request
}

double TraceReader::arrival_after_speed(double seconds, const std::string& where) const {
  const double at = seconds / options_.speed;
  if (!(at <= kMaxTraceSeconds)) {
    throw UsageError(
        fmt::format("{}: arrival {:g} s at --trace-speed {:g} is {:g} s; expected at most 1e9 s "
                    "(a larger --trace-speed)",
                    where, seconds, options_.speed, at));
  }
  return at;
}

bool TraceReader::parse_csv(const std::string& line, TraceRequest& r, const std::string& where) {
  const auto cells = split(line, ',');
  const auto cell = [&](int i) {
    if (i >= static_cast<int>(cells.size())) throw UsageError(fmt::format("{}: too few columns", where));
    return trim_copy(cells[static_cast<std::size_t>(i)]);
  };
  const auto t = csv_time(cell(csv_arrival_));
  if (!t) {
    throw UsageError(
        fmt::format("{}: arrival '{}' is not a time; expected seconds from 0 to 1e10 or "
                    "YYYY-MM-DD hh:mm:ss[.frac]",
                    where, printable_text(cell(csv_arrival_))));
  }
  if (csv_first_arrival_ < 0) csv_first_arrival_ = *t;
  r.arrival_s = arrival_after_speed(*t - csv_first_arrival_, where);
  // core's one integer rule (64-bit, range-checked), the message naming the file and line.
  r.prompt_tokens = parse_int_in(cell(csv_prompt_), where + ": prompt tokens", 1, kMaxTraceTokens);
  r.output_tokens = parse_int_in(cell(csv_output_), where + ": output tokens", 0, kMaxTraceTokens);
  own_blocks(r, kPrivateIds | (static_cast<std::uint64_t>(line_number_) << 20), options_.block_tokens, where);
  return true;
}

nlohmann::json TraceReader::json_record(const std::string& line, const std::string& where) const {
  nlohmann::json j;
  try {
    // A key given twice would be read as its last value: refused, as in config.json.
    j = parse_json_without_repeated_keys(line, where);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(fmt::format("{}: not a JSON object", where));
  }
  if (!j.is_object()) throw UsageError(fmt::format("{}: not a JSON object", where));
  return j;
}

bool TraceReader::parse_line(const std::string& line, TraceRequest& r) {
  const auto where = fmt::format("{}:{}", shown_, line_number_);
  if (format_ == TraceFormat::kCsv) return parse_csv(line, r, where);
  const auto j = json_record(line, where);
  if (format_ == TraceFormat::kMooncake) {
    r.arrival_s = arrival_after_speed(seconds_field(j, "timestamp", 1e-3, where), where);
    r.prompt_tokens = trace_token_count(j, "input_length", 1, where);
    r.output_tokens = trace_token_count(j, "output_length", 0, where);
    if (!j.contains("hash_ids")) throw UsageError(fmt::format("{}: 'hash_ids' is missing", where));
    hash_ids(j, r, options_.block_tokens, where);
    return true;
  }
  r.arrival_s = arrival_after_speed(seconds_field(j, "arrival_s", 1, where), where);
  r.prompt_tokens = trace_token_count(j, "prompt_tokens", 1, where);
  r.output_tokens = trace_token_count(j, "output_tokens", 0, where);
  if (j.contains("hash_ids")) {
    hash_ids(j, r, options_.block_tokens, where);
  } else if (j.contains("session")) {
    const auto& s = j.at("session");
    if (!s.is_string() && !s.is_number_integer())
      throw UsageError(fmt::format("{}: 'session' is not a string or an integer", where));
    const auto key = s.is_string() ? s.get<std::string>() : std::to_string(s.get<std::int64_t>());
    const auto [it, added] = sessions_.try_emplace(key, sessions_.size());
    (void)added;
    // A session's turns extend one context: block b of any turn is the same block.
    own_blocks(r, kSessionIds | (it->second << 20), options_.block_tokens, where);
  } else {
    throw UsageError(fmt::format("{}: neither 'hash_ids' nor 'session'; expected one of them", where));
  }
  return true;
}

bool TraceReader::kept(const TraceRequest& r) const {
  if (options_.sample >= 1.0 || r.block_ids.empty()) return true;
  // By the first two blocks: a prefix tree below its root is kept or dropped whole, so shared
  // prefixes stay shared. Not by the first alone: in real traces it is often one system prompt
  // that every request shares (Mooncake's conversation trace: nearly all start with hash 0), which
  // would keep all requests or none.
  std::uint64_t key = mix(r.block_ids.front());
  if (r.block_ids.size() > 1) key = mix(key ^ r.block_ids[1]);
  return static_cast<double>(key >> 11) * 0x1p-53 < options_.sample;
}

bool TraceReader::read_record(TraceRequest& out) {
  if (format_ == TraceFormat::kAiperf || format_ == TraceFormat::kGuidellm ||
      format_ == TraceFormat::kInferencePerf || format_ == TraceFormat::kVllmBench) {
    if (held_next_ == held_.size()) return false;
    const auto& h = held_[held_next_++];
    out.arrival_s = h.arrival_s;
    out.prompt_tokens = h.prompt_tokens;
    out.output_tokens = h.output_tokens;
    own_blocks(out, kPrivateIds | (static_cast<std::uint64_t>(h.line) << 20), options_.block_tokens,
               format_ == TraceFormat::kAiperf ? fmt::format("{}:{}", shown_, h.line)
                                               : fmt::format("{}: request {}", shown_, h.line));
    return true;
  }
  if (format_ == TraceFormat::kVllmLog) {
    if (logged_next_ == logged_.size()) return false;
    out = std::move(logged_[logged_next_++]);
    return true;
  }
  if (have_pending_) {
    have_pending_ = false;
    return parse_line(pending_, out);
  }
  std::string line;
  while (next_line(line)) {
    if (trim_copy(line).empty()) continue;
    return parse_line(line, out);
  }
  return false;
}

bool TraceReader::next(TraceRequest& out) {
  while (options_.limit == 0 || returned_ < options_.limit) {
    const double previous = returned_ > 0 || skipped_ > 0 ? last_arrival_ : 0;
    if (!read_record(out)) {
      // A sample that keeps nothing is no trace to size or replay: said, not answered from nothing.
      if (returned_ == 0 && skipped_ > 0) {
        throw UsageError(fmt::format(
            "trace '{}': no request left after --trace-sample {:g} ({} requests read, all left out); "
            "expected a larger --trace-sample",
            shown_, options_.sample, skipped_));
      }
      // A CSV of a header alone: the same "no records" as an empty file.
      if (returned_ == 0 && skipped_ == 0 && !interrupt_requested()) throw no_records(shown_);
      return false;
    }
    if (out.arrival_s + 1e-9 < previous) {
      throw UsageError(
          fmt::format("{}:{}: arrival {:.3f} s is before the previous record's {:.3f} s; expected records "
                      "in arrival order",
                      shown_, line_number_, out.arrival_s, previous));
    }
    last_arrival_ = out.arrival_s;
    if (!kept(out)) {
      ++skipped_;
      continue;
    }
    ++returned_;
    return true;
  }
  return false;
}

}  // namespace kvb
