#include "trace/llmd_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/yaml_reader.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {
namespace {

// A report's field by its dotted name, for reading and for messages.
class Fields {
 public:
  explicit Fields(std::string origin) : origin_(std::move(origin)) {}

  // The mapping at `path` under `node`; an undefined node where a step is absent or null.
  YAML::Node at(const YAML::Node& node, const std::string& path) const {
    YAML::Node at = node;
    for (const auto& key : split(path, '.')) {
      const YAML::Node& here = at;  // const: a lookup never adds the key
      if (!here.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
      const auto next = here[key];
      if (!next || next.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
      at.reset(next);
    }
    return at;
  }

  std::optional<double> number(const YAML::Node& n, const std::string& field,
                               bool infinite_ok = false) const {
    if (!n) return std::nullopt;
    if (n.IsScalar()) {
      const auto text = to_lower(n.Scalar());
      if (infinite_ok && (text == ".inf" || text == "inf" || text == "infinity"))
        return std::numeric_limits<double>::infinity();
      double v = 0;
      if (YAML::convert<double>::decode(n, v) && std::isfinite(v)) return v;
    }
    throw UsageError(fmt::format("{}: '{}' is not a finite number", origin_, field));
  }

  std::optional<std::int64_t> count(const YAML::Node& n, const std::string& field) const {
    if (!n) return std::nullopt;
    long long v = 0;
    if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < 0)
      throw UsageError(fmt::format("{}: '{}' is not a whole number from 0", origin_, field));
    return v;
  }

  std::string text(const YAML::Node& n) const { return n && n.IsScalar() ? n.Scalar() : std::string(); }

  // A Statistics under `field`, its values scaled by the factor its units have in `units`.
  std::optional<LlmdStatistic> statistic(const YAML::Node& root, const std::string& field,
                                         const std::vector<std::pair<std::string, double>>& units) const;

  const std::string& origin() const { return origin_; }

 private:
  std::string origin_;
};

std::optional<LlmdStatistic> Fields::statistic(
    const YAML::Node& root, const std::string& field,
    const std::vector<std::pair<std::string, double>>& units) const {
  const auto s = at(root, field);
  if (!s) return std::nullopt;
  if (!s.IsMap()) throw UsageError(fmt::format("{}: '{}' is not a mapping of statistics", origin_, field));
  const auto unit = text(s["units"]);
  double scale = 0;
  std::string allowed;
  for (const auto& [name, factor] : units) {
    if (unit == name) scale = factor;
    allowed += (allowed.empty() ? "" : ", ") + name;
  }
  if (scale == 0) {
    throw UsageError(fmt::format("{}: '{}.units' is '{}'; expected one of {}", origin_, field,
                                 printable_text(unit), allowed));
  }
  const auto mean = number(s["mean"], field + ".mean");
  if (!mean) throw UsageError(fmt::format("{}: '{}.mean' is missing", origin_, field));
  LlmdStatistic out;
  out.mean = *mean * scale;
  const auto scaled = [&](const char* key) -> std::optional<double> {
    const auto v = number(s[key], field + "." + key);
    return v ? std::optional<double>(*v * scale) : std::nullopt;
  };
  out.stddev = scaled("stddev");
  out.min = scaled("min");
  out.p50 = scaled("p50");
  out.p90 = scaled("p90");
  out.p95 = scaled("p95");
  out.p99 = scaled("p99");
  out.max = scaled("max");
  return out;
}

const std::vector<std::pair<std::string, double>> kCount{{"count", 1}};
const std::vector<std::pair<std::string, double>> kTime{{"s", 1}, {"ms", 1e-3}};
const std::vector<std::pair<std::string, double>> kPerToken{{"s/token", 1}, {"ms/token", 1e-3}};
const std::vector<std::pair<std::string, double>> kTokenRate{{"tokens/s", 1}};
const std::vector<std::pair<std::string, double>> kRequestRate{{"queries/s", 1}};

void read_load(const Fields& f, const YAML::Node& doc, LlmdReport& r) {
  const auto load = f.at(doc, "scenario.load.standardized");
  if (!load) return;
  r.tool = f.text(load["tool"]);
  r.tool_version = f.text(load["tool_version"]);
  r.rate_qps = f.number(load["rate_qps"], "scenario.load.standardized.rate_qps");
  r.concurrency = f.number(load["concurrency"], "scenario.load.standardized.concurrency", true);
}

void read_aggregate(const Fields& f, const YAML::Node& doc, LlmdReport& r) {
  const auto agg = f.at(doc, "results.request_performance.aggregate");
  if (!agg) return;
  const std::string at = "results.request_performance.aggregate.";
  r.requests = f.count(f.at(agg, "requests.total"), at + "requests.total");
  r.failures = f.count(f.at(agg, "requests.failures"), at + "requests.failures");
  r.incomplete = f.count(f.at(agg, "requests.incomplete"), at + "requests.incomplete");
  const auto stat = [&](const char* name, const std::vector<std::pair<std::string, double>>& units) {
    const auto s = f.statistic(doc, at + name, units);  // by its full name, for messages
    if (s && s->mean < 0)
      throw UsageError(fmt::format("{}: '{}{}.mean' is negative; expected 0 or more", f.origin(), at, name));
    return s;
  };
  r.input_length = stat("requests.input_length", kCount);
  r.output_length = stat("requests.output_length", kCount);
  r.ttft_s = stat("latency.time_to_first_token", kTime);
  r.tpot_s = stat("latency.time_per_output_token", kPerToken);
  r.itl_s = stat("latency.inter_token_latency", kPerToken);
  r.ntpot_s = stat("latency.normalized_time_per_output_token", kPerToken);
  r.request_latency_s = stat("latency.request_latency", kTime);
  r.input_token_rate = stat("throughput.input_token_rate", kTokenRate);
  r.output_token_rate = stat("throughput.output_token_rate", kTokenRate);
  r.total_token_rate = stat("throughput.total_token_rate", kTokenRate);
  r.request_rate = stat("throughput.request_rate", kRequestRate);
}

}  // namespace

bool is_llmd_report(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("version") && doc.contains("run") && doc.at("run").is_object() &&
         doc.contains("results") && doc.at("results").is_object();
}

bool is_llmd_report(const YAML::Node& doc) {
  return doc.IsMap() && doc["version"] && doc["version"].IsScalar() && doc["run"] && doc["run"].IsMap() &&
         doc["results"] && doc["results"].IsMap();
}

std::string llmd_version(const nlohmann::json& doc) {
  const auto& v = doc.at("version");
  return v.is_string() ? v.get<std::string>() : v.dump();
}

LlmdReport llmd_report(const YAML::Node& doc, const std::string& origin) {
  if (!is_llmd_report(doc)) {
    throw UsageError(fmt::format(
        "{}: no 'version', 'run' and 'results' at the top; expected an llm-d-benchmark report", origin));
  }
  LlmdReport r;
  r.version = doc["version"].Scalar();
  if (r.version != "0.2" && r.version != "0.2.1") {
    throw UsageError(
        fmt::format("{}: 'version' is '{}'; expected 0.2 or 0.2.1", origin, printable_text(r.version)));
  }
  const Fields f(origin);
  read_load(f, doc, r);
  read_aggregate(f, doc, r);
  return r;
}

LlmdReport read_llmd_report(const std::string& path) {
  const auto origin = fmt::format("llm-d-benchmark report '{}'", printable_path(path));
  const auto text = read_text_file(path, "llm-d-benchmark report", kMaxResultInputBytes);
  return llmd_report(YamlObject::parse(text, origin).node(), origin);
}

UsageError llmd_report_is_no_trace(const std::string& shown, const std::string& version) {
  return UsageError(
      fmt::format("trace '{}': an llm-d-benchmark report (version {}): a run's aggregates (rates, lengths, "
                  "latency percentiles), not its requests, so no trace to replay; expected the run's "
                  "per-request file (inference-perf's per_request_lifecycle_metrics.json, GuideLLM's "
                  "benchmarks.json or AIPerf's profile_export.jsonl)",
                  shown, printable_text(version)));
}

// A first line that is a YAML key ("results:", "version: 0.2.1") is no CSV header: an llm-d-benchmark
// report is said to be one.
bool opens_as_yaml_report(const std::string& text) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return false;
  const auto line = std::string_view(text).substr(start, text.find('\n', start) - start);
  if (line == "---") return true;
  const auto key_end =
      line.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
  return key_end > 0 && key_end != std::string_view::npos && line[key_end] == ':' &&
         (key_end + 1 == line.size() || line[key_end + 1] == ' ' || line[key_end + 1] == '\r');
}

void TraceReader::refuse_yaml_report(const std::string& first) {
  if (!opens_as_yaml_report(first)) return;  // a CSV header or a vLLM log line stays unread here
  YAML::Node doc;
  try {
    doc = YamlObject::parse(pending_ + "\n" + read_rest(), shown_).node();
  } catch (const UsageError&) {
    return;
  }
  if (is_llmd_report(doc)) throw llmd_report_is_no_trace(shown_, doc["version"].Scalar());
}

}  // namespace kvb
