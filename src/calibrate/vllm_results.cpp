#include "calibrate/vllm_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "calibrate/client_results.hpp"
#include "calibrate/llmd_aggregate_run.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "trace/guidellm_report.hpp"
#include "trace/trace_reader.hpp"
#include "trace/vllm_bench_results.hpp"

namespace kvb {
namespace {

constexpr std::int64_t kMaxTokens = kMaxRunTokens;
constexpr double kMaxSpanSeconds = kMaxRunSpanSeconds;

VllmRun read_bench_json(const std::string& path, const nlohmann::json& doc) {
  if (!doc.is_object())
    throw UsageError(fmt::format("{}: a JSON {}, not an object; expected {}", path, doc.type_name(),
                                 accepted_results_text()));
  const auto bench = vllm_bench_run(doc, path, kMaxTokens);
  VllmRun run{
      path, {}, {"vllm bench serve", {.field = "start_times", .poisson_rate = 0}, {.failed = bench.failed}}};
  if (bench.poisson_rate > 0) run.origin.arrivals = {.field = "", .poisson_rate = bench.poisson_rate};
  for (const auto& r : bench.requests)
    run.requests.push_back({r.start_s, r.prompt_tokens, r.output_tokens, r.ttft_s, r.e2e_s});
  return run;
}

VllmRun read_residency_csv(const std::string& path, const std::string& text) {
  auto lines = split(text, '\n');
  if (lines.empty()) throw UsageError(fmt::format("{}: empty", path));
  std::map<std::string, int> col;
  const auto header = split(trim_copy(lines.front()), ',');
  for (int i = 0; i < static_cast<int>(header.size()); ++i)
    col[trim_copy(header[static_cast<std::size_t>(i)])] = i;
  for (const char* need : {"send_us", "server_input_tokens", "output_tokens", "ttft_us", "e2e_us"}) {
    if (!col.count(need)) {
      throw UsageError(
          fmt::format("{}: no column '{}'; expected send_us, server_input_tokens, output_tokens, ttft_us, "
                      "e2e_us (the residency-vllm trace columns)",
                      path, need));
    }
  }
  VllmRun run{path, {}, {"residency-vllm CSV", {.field = "send_us", .poisson_rate = 0}, {}}};
  for (std::size_t ln = 1; ln < lines.size(); ++ln) {
    const auto line = trim_copy(lines[ln]);
    if (line.empty()) continue;
    const auto cells = split(line, ',');
    const auto cell = [&](const char* key) {
      const auto i = static_cast<std::size_t>(col.at(key));
      if (i >= cells.size()) throw UsageError(fmt::format("{}:{}: too few columns", path, ln + 1));
      return trim_copy(cells[i]);
    };
    if (col.count("status") && cell("status") != "ok") {
      ++run.origin.left_out.failed;
      continue;
    }
    const auto where = fmt::format("{}:{}", path, ln + 1);
    ObservedRequest r;
    r.arrival_s =
        static_cast<double>(parse_int_in(cell("send_us"), where + ": send_us", 0, std::int64_t{1} << 50)) /
        1e6;
    r.prompt_tokens =
        parse_int_in(cell("server_input_tokens"), where + ": server_input_tokens", 1, kMaxTokens);
    r.output_tokens = parse_int_in(cell("output_tokens"), where + ": output_tokens", 1, kMaxTokens);
    r.ttft_s =
        static_cast<double>(parse_int_in(cell("ttft_us"), where + ": ttft_us", 0, std::int64_t{1} << 50)) /
        1e6;
    r.e2e_s =
        static_cast<double>(parse_int_in(cell("e2e_us"), where + ": e2e_us", 0, std::int64_t{1} << 50)) / 1e6;
    if (r.e2e_s < r.ttft_s) {
      throw UsageError(
          fmt::format("{}: e2e_us {} is below ttft_us {}; expected the end after the first token", where,
                      cell("e2e_us"), cell("ttft_us")));
    }
    if (r.arrival_s > kMaxSpanSeconds)
      throw UsageError(
          fmt::format("{}: send_us {} is past 1e7 s; expected a run's microseconds", where, cell("send_us")));
    run.requests.push_back(r);
  }
  return run;
}

// JSON results: the whole file as one document, else (JSON lines) its first line's value; the first
// client format whose detector accepts it reads the file, else vllm bench serve's reader, whose
// errors name the field it lacks.
VllmRun read_json_results(const std::string& path, const std::string& text) {
  auto head = nlohmann::json::parse(text, nullptr, false);
  const bool lines = head.is_discarded();
  if (lines) {
    const auto start = text.find_first_not_of(" \t\r\n");
    head = nlohmann::json::parse(text.substr(start, text.find('\n', start) - start), nullptr, false);
  }
  const ClientFile file{path, text, head, lines};
  for (const auto& format : client_formats()) {
    if (format.detect(file)) return format.read(file);
  }
  if (lines) throw UsageError(fmt::format("{}: not valid JSON; expected {}", path, accepted_results_text()));
  return read_bench_json(path, head);
}

}  // namespace

VllmRun read_vllm_run(const std::string& path) {
  // One read, at the trace document's cap: a bench JSON keeps every generated text, and a GuideLLM
  // report that `trace` reads is read here too.
  auto text = read_text_file(path, "--from-vllm", kMaxTraceDocumentBytes);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte-order mark
  const auto first = text.find_first_not_of(" \t\r\n");
  // A JSON array is JSON too: read as JSON so its refusal says what it is, not "no column".
  const bool json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
  auto yaml_report = json ? std::nullopt : llmd_yaml_run(path, text);
  auto run = json          ? read_json_results(path, text)
             : yaml_report ? std::move(*yaml_report)
                           : read_residency_csv(path, text);
  if (run.requests.empty()) {
    throw UsageError(fmt::format(
        "{}: no completed request with its latencies in the file ({} failed, {} without a TTFT or an "
        "end-to-end latency); expected at least one",
        path, run.origin.left_out.failed, run.origin.left_out.without_latency));
  }
  std::stable_sort(
      run.requests.begin(), run.requests.end(),
      [](const ObservedRequest& a, const ObservedRequest& b) { return a.arrival_s < b.arrival_s; });
  return run;
}

}  // namespace kvb
