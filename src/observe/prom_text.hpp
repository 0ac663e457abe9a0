#pragma once
// A strict reader of the Prometheus text exposition format (version 0.0.4, which vLLM, SGLang and
// LMCache serve through prometheus_client): samples with their labels, and each family's # HELP
// and # TYPE. What is not that format is a UsageError naming the line, never a guess.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvb {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

struct PromSample {
  std::string name;  // as exposed: a counter's sample carries "_total", a histogram's "_sum"/"_count"
  PromLabels labels;
  double value = 0;
};

struct PromFamily {
  std::string type;  // counter, gauge, histogram, summary, untyped ("" when no # TYPE line)
  std::string help;
};

struct PromExposition {
  std::vector<PromSample> samples;
  std::map<std::string, PromFamily, std::less<>> families;  // by the # HELP / # TYPE name
};

// Parses `text`; `source` names it in errors ("http://host:8000/metrics", a file's path).
// Refuses: a line that is not a comment or a sample, a bad name or label, an unterminated or
// badly escaped label value, a value that is not a number (NaN, +Inf, -Inf are numbers), the same
// sample twice, two # TYPE lines for one family, an unknown type, NUL bytes, and no sample at all.
PromExposition parse_prom_text(std::string_view text, const std::string& source);

// Label pairs a sample must carry (others are ignored).
using PromMatch = std::vector<std::pair<std::string_view, std::string_view>>;

// The sum over every sample of counter `family` that carries `match`: prometheus_client exposes
// a counter as family_total (and family_created); a client that does not is read as `family`.
// nullopt when no sample matches (the metric is not exposed, or not yet created).
std::optional<double> prom_counter(const PromExposition& e, std::string_view family,
                                   const PromMatch& match = {});

// Gauge `name`'s samples that carry `match`: their sum, or their mean (a ratio per engine).
std::optional<double> prom_gauge_sum(const PromExposition& e, std::string_view name,
                                     const PromMatch& match = {});
std::optional<double> prom_gauge_mean(const PromExposition& e, std::string_view name,
                                      const PromMatch& match = {});

// Whether any sample's name starts with `prefix` ("vllm:kv_offload_").
bool prom_has_prefix(const PromExposition& e, std::string_view prefix);

}  // namespace kvb
