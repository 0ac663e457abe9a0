#include "trace/vllm_bench_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/rng.hpp"
#include "core/strings.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

// A request's token count: 0 is a failed request (vLLM records 0); negative or past the replay's
// limit is a broken file.
std::int64_t tokens_in(const nlohmann::json& v, const std::string& where, std::int64_t max_tokens) {
  if (!v.is_number_integer()) throw UsageError(where + ": not a whole number");
  const auto n = v.get<std::int64_t>();
  if (n < 0 || n > max_tokens) {
    throw UsageError(
        fmt::format("{} is {}; expected 0 (a failed request) to {} tokens", where, n, max_tokens));
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

// The file's start_times, or arrivals drawn at its request_rate (run.poisson_rate set).
std::vector<double> arrivals_of(const nlohmann::json& doc, std::size_t n, const std::string& path,
                                VllmBenchRun& run) {
  std::vector<double> arrivals;
  if (const auto st = doc.find("start_times"); st != doc.end() && st->is_array() && st->size() == n) {
    for (std::size_t i = 0; i < n; ++i)
      arrivals.push_back(seconds_in((*st)[i], fmt::format("{}: start_times[{}]", path, i)));
    return arrivals;
  }
  const auto it = doc.find("request_rate");
  if (it == doc.end() || !it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>())) {
    throw UsageError(
        fmt::format("{}: no 'start_times' and no finite 'request_rate'; expected one of them to place "
                    "the requests in time",
                    path));
  }
  run.poisson_rate = it->get<double>();
  return poisson_arrivals_at(run.poisson_rate, n, fmt::format("{}: field 'request_rate'", path));
}

}  // namespace

bool is_vllm_bench_result(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("input_lens") && doc.contains("output_lens");
}

VllmBenchRun vllm_bench_run(const nlohmann::json& doc, const std::string& path, std::int64_t max_tokens) {
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
  VllmBenchRun run;
  const auto arrivals = arrivals_of(doc, n, path, run);
  const double first = *std::min_element(arrivals.begin(), arrivals.end());
  for (std::size_t i = 0; i < n; ++i) {
    const auto where = [&](const char* key) { return fmt::format("{}: {}[{}]", path, key, i); };
    VllmBenchRequest r{.start_s = arrivals[i] - first, .index = i};
    r.prompt_tokens = tokens_in(in[i], where("input_lens"), max_tokens);
    r.output_tokens = tokens_in(out[i], where("output_lens"), max_tokens);
    if (r.prompt_tokens < 1 || r.output_tokens < 1) {  // a failed request: vLLM records 0
      ++run.failed;
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

std::vector<double> poisson_arrivals_at(double rate, std::size_t n, const std::string& where) {
  // n requests at this rate must fit the span a run can have, and no server takes a million a second.
  if (!(rate > 0) || rate > 1e6 || static_cast<double>(n) / rate > kMaxRunSpanSeconds) {
    throw UsageError(
        fmt::format("{} is {:g}/s; expected a rate from {:g} to 1e6 requests/s (its {} requests "
                    "within 1e7 s)",
                    where, rate, static_cast<double>(n) / kMaxRunSpanSeconds, n));
  }
  Rng rng(Rng::derive(1, 7));
  std::vector<double> out;
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(t);
    t += rng.exponential(1.0 / rate);
  }
  return out;
}

// The completed requests, in start order (the lists are in the order vLLM sent them, which the
// start times need not follow), as a trace with no reuse recorded.
void TraceReader::read_vllm_bench(const nlohmann::json& doc) {
  if (!trim_copy(read_rest()).empty()) {  // --append-result: a second run after the first line's
    throw UsageError(
        fmt::format("trace '{}': a second JSON document after vllm bench serve's result "
                    "(--append-result); expected one run per file",
                    shown_));
  }
  format_ = TraceFormat::kVllmBench;
  have_pending_ = false;
  auto run =
      vllm_bench_run(doc, fmt::format("trace '{}'", shown_), kMaxGeneratedBlocks * options_.block_tokens);
  failed_ = run.failed;
  auto& ok = run.requests;
  if (ok.empty()) {
    throw UsageError(fmt::format(
        "trace '{}': a vllm bench serve result with no completed request ({} failed); expected at least one",
        shown_, failed_));
  }
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
  for (const auto& r : ok) {
    const double arrival = arrival_after_speed(r.start_s - ok.front().start_s,
                                               fmt::format("trace '{}': start_times[{}]", shown_, r.index));
    held_.push_back({arrival, r.prompt_tokens, r.output_tokens, static_cast<std::int64_t>(r.index) + 1});
  }
}

}  // namespace kvb
