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
#include "core/rng.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "trace/guidellm_report.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

constexpr std::int64_t kMaxTokens = kMaxRunTokens;
constexpr double kMaxSpanSeconds = kMaxRunSpanSeconds;

// A request's token count: 0 is a failed request (vLLM records 0 and it is left out); negative
// or past the replay's limit is a broken file.
std::int64_t tokens_in(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_integer()) throw UsageError(where + ": not a whole number");
  const auto n = v.get<std::int64_t>();
  if (n < 0 || n > kMaxTokens) {
    throw UsageError(
        fmt::format("{} is {}; expected 0 (a failed request) to {} tokens", where, n, kMaxTokens));
  }
  return n;
}

double seconds_in(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1e7) {
    throw UsageError(fmt::format("{}: expected seconds from 0 to 1e7", where));
  }
  return v.get<double>();
}

const nlohmann::json& list_field(const nlohmann::json& doc, const char* key, const std::string& path) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_array()) {
    throw UsageError(
        fmt::format("{}: field '{}' is missing or not a list; expected the per-request lists of "
                    "vllm bench serve --save-result",
                    path, key));
  }
  return *it;
}

// Arrivals the file does not record: a Poisson process at its request rate, seeded, stated.
std::vector<double> poisson_arrivals(const nlohmann::json& doc, std::size_t n, const std::string& path,
                                     ArrivalsSource& source) {
  const auto it = doc.find("request_rate");
  if (it == doc.end() || !it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>())) {
    throw UsageError(
        fmt::format("{}: no 'start_times' and no finite 'request_rate'; expected one of them to place "
                    "the requests in time",
                    path));
  }
  return poisson_arrivals_at(it->get<double>(), n, fmt::format("{}: field 'request_rate'", path), source);
}

VllmRun read_bench_json(const std::string& path, const nlohmann::json& doc) {
  if (!doc.is_object())
    throw UsageError(fmt::format("{}: a JSON {}, not an object; expected {}", path, doc.type_name(),
                                 accepted_results_text()));
  const auto& in = list_field(doc, "input_lens", path);
  const auto& out = list_field(doc, "output_lens", path);
  const auto& ttfts = list_field(doc, "ttfts", path);
  const auto& itls = list_field(doc, "itls", path);
  const auto n = in.size();
  if (out.size() != n || ttfts.size() != n || itls.size() != n || n == 0) {
    throw UsageError(
        fmt::format("{}: input_lens, output_lens, ttfts and itls have {}, {}, {} and {} entries; expected "
                    "the same number, at least one",
                    path, n, out.size(), ttfts.size(), itls.size()));
  }
  VllmRun run{path, {}, {"vllm bench serve", {.field = "start_times", .poisson_rate = 0}, {}}};
  std::vector<double> arrivals;
  if (const auto st = doc.find("start_times"); st != doc.end() && st->is_array() && st->size() == n) {
    for (std::size_t i = 0; i < n; ++i)
      arrivals.push_back(
          seconds_in((*st)[i], fmt::format("{}: start_times[{}]", path, i)));  // where, for errors
  } else {
    arrivals = poisson_arrivals(doc, n, path, run.origin.arrivals);
  }
  const double first = *std::min_element(arrivals.begin(), arrivals.end());
  for (std::size_t i = 0; i < n; ++i) {
    const auto where = [&](const char* key) { return fmt::format("{}: {}[{}]", path, key, i); };
    ObservedRequest r;
    r.arrival_s = arrivals[i] - first;
    r.prompt_tokens = tokens_in(in[i], where("input_lens"));
    r.output_tokens = tokens_in(out[i], where("output_lens"));
    if (r.prompt_tokens < 1 || r.output_tokens < 1) {  // a failed request: vLLM records 0
      ++run.origin.left_out.failed;
      continue;
    }
    r.ttft_s = seconds_in(ttfts[i], where("ttfts"));
    if (!itls[i].is_array()) throw UsageError(where("itls") + ": not a list");
    r.e2e_s = r.ttft_s;
    for (const auto& gap : itls[i]) r.e2e_s += seconds_in(gap, where("itls"));
    run.requests.push_back(r);
  }
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

std::vector<double> poisson_arrivals_at(double rate, std::size_t n, const std::string& where,
                                        ArrivalsSource& source) {
  // n requests at this rate must fit the span a run can have, and no server takes a million a second.
  if (!(rate > 0) || rate > 1e6 || static_cast<double>(n) / rate > kMaxSpanSeconds) {
    throw UsageError(
        fmt::format("{} is {:g}/s; expected a rate from {:g} to 1e6 requests/s (its {} requests "
                    "within 1e7 s)",
                    where, rate, static_cast<double>(n) / kMaxSpanSeconds, n));
  }
  Rng rng(Rng::derive(1, 7));
  std::vector<double> out;
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(t);
    t += rng.exponential(1.0 / rate);
  }
  source = {.field = "", .poisson_rate = rate};
  return out;
}

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
