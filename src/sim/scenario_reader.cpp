#include "sim/scenario_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <utility>

#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "sim/server_fields.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {
namespace {

ArrivalSpec parse_arrival(const YamlObject& o) {
  ArrivalSpec a;
  const auto process = one_of(o, "process", "poisson", {"poisson", "bursty", "fixed", "closed"});
  a.process = process == "closed"   ? ArrivalProcess::kClosed
              : process == "bursty" ? ArrivalProcess::kBursty
              : process == "fixed"  ? ArrivalProcess::kFixed
                                    : ArrivalProcess::kPoisson;
  if (a.process == ArrivalProcess::kClosed) {
    a.users = static_cast<int>(positive_int(o, "users", 0, false, kMaxClosedUsers));
    o.reject_unknown_keys({"process", "users"});
    return a;
  }
  a.rate = positive(o, "rate", 0);
  if (a.rate < kMinArrivalRate || a.rate > kMaxArrivalRate) {
    throw UsageError(fmt::format("{}: key 'rate' is {:g} requests/s; expected {:g} to {:g}", o.origin(),
                                 a.rate, kMinArrivalRate, kMaxArrivalRate));
  }
  if (a.process == ArrivalProcess::kBursty) {
    a.burst_seconds = positive(o, "burst-seconds", 0);
    a.idle_seconds = positive(o, "idle-seconds", 0);
    o.reject_unknown_keys({"process", "rate", "burst-seconds", "idle-seconds"});
  } else {
    o.reject_unknown_keys({"process", "rate"});
  }
  return a;
}

// One workload key and its reader: the workload's field table, walked whole for a file and for the
// one key an override sets.
struct WorkloadField {
  const char* key;
  void (*read)(const YamlObject& o, WorkloadSpec& w);
};

// A distribution key: absent keeps the default (a fixed length or time).
template <Distribution WorkloadSpec::*member, bool allow_zero>
void distribution_key(const YamlObject& o, const char* key, WorkloadSpec& w) {
  if (o.has(key)) w.*member = parse_distribution(o.node()[key], o.origin(), key, allow_zero);
}

void requests(const YamlObject& o, WorkloadSpec& w) {
  w.requests = positive_int(o, "requests", w.requests, false, kMaxRequests);
}
void arrival(const YamlObject& o, WorkloadSpec& w) {
  if (!o.has("arrival")) throw UsageError(fmt::format("{}: missing required key 'arrival'", o.origin()));
  w.arrival = parse_arrival(o.object("arrival"));
}
void prompt(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::prompt, false>(o, "prompt", w);
}
void output(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::output, false>(o, "output", w);
}
void system_prefix(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::system_prefix, true>(o, "system-prefix", w);
}
void system_prefixes(const YamlObject& o, WorkloadSpec& w) {
  w.system_prefixes = static_cast<int>(positive_int(o, "system-prefixes", 1, false, kMaxSystemPrefixes));
}
void turns(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::turns, false>(o, "turns", w);
}
void think_time(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::think_time, true>(o, "think-time", w);
}
void documents(const YamlObject& o, WorkloadSpec& w) {
  w.documents = static_cast<int>(positive_int(o, "documents", 0, true, kMaxDocuments));
}
void document_tokens(const YamlObject& o, WorkloadSpec& w) {
  distribution_key<&WorkloadSpec::document_tokens, true>(o, "document-tokens", w);
}
void document_zipf(const YamlObject& o, WorkloadSpec& w) {
  w.document_zipf = positive(o, "document-zipf", 0, true);
}
void document_order(const YamlObject& o, WorkloadSpec& w) {
  w.documents_round_robin =
      one_of(o, "document-order", "popularity", {"popularity", "round-robin"}) == "round-robin";
}
void repeat_share(const YamlObject& o, WorkloadSpec& w) {
  w.repeat_share = positive(o, "repeat-share", 0, true);
  if (w.repeat_share >= 1) {
    throw UsageError(
        fmt::format("{}: key 'repeat-share' is {}; expected a share from 0 to below 1 (e.g. 0.3)", o.origin(),
                    w.repeat_share));
  }
}
void reset_prefix_cache(const YamlObject& o, WorkloadSpec& w) {
  w.reset_prefix_cache = o.boolean_or("reset-prefix-cache", false);
}
void client_timeout(const YamlObject& o, WorkloadSpec& w) {
  w.client_timeout_s = positive(o, "client-timeout", 0, true, 1e7);
}
void duration(const YamlObject& o, WorkloadSpec& w) { w.duration_s = positive(o, "duration", 0, true, 1e7); }
void over_length(const YamlObject& o, WorkloadSpec& w) {
  w.clip_long_prompts = one_of(o, "over-length", "reject", {"reject", "clip"}) == "clip";
}

// In the order a file's keys are read (which error a file with two bad keys gets).
constexpr std::array<WorkloadField, 17> kWorkloadFields = {{
    {"requests", requests},
    {"arrival", arrival},
    {"prompt", prompt},
    {"output", output},
    {"system-prefix", system_prefix},
    {"system-prefixes", system_prefixes},
    {"turns", turns},
    {"think-time", think_time},
    {"documents", documents},
    {"document-tokens", document_tokens},
    {"document-zipf", document_zipf},
    {"document-order", document_order},
    {"repeat-share", repeat_share},
    {"reset-prefix-cache", reset_prefix_cache},
    {"client-timeout", client_timeout},
    {"duration", duration},
    {"over-length", over_length},
}};

// The top-level keys besides the server's, in the order the file's reader reads them.
constexpr std::array<const char*, 8> kScenarioKeys = {"name",   "description", "seed",     "replicas",
                                                      "router", "calibration", "workload", "sweep"};

std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys;
  for (const auto& f : server_fields()) keys.push_back(f.key);
  for (const char* k : kScenarioKeys) keys.emplace_back(k);
  return keys;
}

}  // namespace

bool is_scenario_key(const std::string& key) {
  const auto keys = top_level_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool is_workload_key(const std::string& key) {
  return std::any_of(kWorkloadFields.begin(), kWorkloadFields.end(),
                     [&](const WorkloadField& f) { return key == f.key; });
}

void read_workload_keys(const YamlObject& o, WorkloadSpec& w, bool whole) {
  std::vector<std::string> keys;
  for (const auto& f : kWorkloadFields) {
    keys.emplace_back(f.key);
    if (whole || o.has(f.key)) f.read(o, w);
  }
  if (w.documents > 0 && w.document_tokens.expected() <= 0) {
    throw UsageError(fmt::format("{}: key 'documents' is {} but 'document-tokens' is missing or 0",
                                 o.origin(), w.documents));
  }
  o.reject_unknown_keys(keys);
}

std::vector<SweepAxis> parse_sweep(const YamlObject& o) {
  std::vector<SweepAxis> axes;
  for (const auto& kv : o.node()) {
    SweepAxis a;
    a.key = kv.first.as<std::string>();
    if (!kv.second.IsSequence() || kv.second.size() == 0) {
      throw UsageError(fmt::format("{}: key '{}' must be a non-empty list of values", o.origin(), a.key));
    }
    for (const auto& v : kv.second) {
      if (!v.IsScalar())
        throw UsageError(fmt::format("{}: key '{}' must list plain values", o.origin(), a.key));
      a.values.push_back(v.as<std::string>());
    }
    axes.push_back(std::move(a));
  }
  return axes;
}

ServerSpec parse_server(const YamlObject& o) {
  ServerSpec v;
  for (const auto& f : server_fields()) f.from_yaml(o, v);
  return v;
}

void read_scenario_keys(const YamlObject& o, Scenario& s, bool whole) {
  const auto& origin = o.origin();
  if (o.has("name")) s.name = o.str("name");
  if (o.has("description")) s.description = o.str("description");
  if (o.has("seed")) s.seed = static_cast<std::uint64_t>(positive_int(o, "seed", 1, true, kMaxSeed));
  for (const auto& f : server_fields()) {
    if (whole || o.has(f.key)) f.from_yaml(o, s.server);
  }
  if (o.has("replicas"))
    s.fleet.replicas = checked_replicas(o.integer_or("replicas", 1), origin + ": key 'replicas'");
  if (o.has("router")) s.fleet.router = parse_router(o.str("router"), origin + ": key 'router'");
  if (o.has("calibration")) s.calibration = parse_calibration(o.object("calibration"), origin);
  if (whole && !o.has("workload"))
    throw UsageError(fmt::format("{}: missing required key 'workload'", origin));
  if (o.has("workload")) {
    WorkloadSpec w;  // a whole workload: the keys it leaves out are the defaults, not the last ones
    read_workload_keys(o.object("workload"), w, true);
    s.workload = w;
  }
  if (o.has("sweep")) {
    s.sweep = parse_sweep(o.object("sweep"));
    check_sweep_points(s.sweep, fmt::format("{}: key 'sweep'", origin));  // where, for its errors
  }
  o.reject_unknown_keys(top_level_keys());
}

Scenario parse_scenario(const std::string& text, const std::string& origin) {
  const auto o = YamlObject::parse(text, origin);
  Scenario s;
  s.origin = printable_path(origin);  // a label in output: a path's raw bytes may not fit JSON
  s.name = printable_path(std::filesystem::path(origin).stem().string());
  read_scenario_keys(o, s, true);
  for (const auto& kv : o.node()) s.file_keys.push_back(kv.first.as<std::string>());
  return s;
}

}  // namespace kvb
