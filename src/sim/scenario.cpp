#include "sim/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <utility>

#include "catalog/embedded_files.hpp"
#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/yaml_reader.hpp"
#include "sim/server_fields.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {
namespace {

Distribution dist_or(const YamlObject& o, const std::string& key, const Distribution& fallback,
                     bool allow_zero) {
  return o.has(key) ? parse_distribution(o.node()[key], o.origin(), key, allow_zero) : fallback;
}

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

WorkloadSpec parse_workload(const YamlObject& o) {
  WorkloadSpec w;
  w.requests = positive_int(o, "requests", w.requests, false, kMaxRequests);
  if (!o.has("arrival")) throw UsageError(fmt::format("{}: missing required key 'arrival'", o.origin()));
  w.arrival = parse_arrival(o.object("arrival"));
  w.prompt = dist_or(o, "prompt", w.prompt, false);
  w.output = dist_or(o, "output", w.output, false);
  w.system_prefix = dist_or(o, "system-prefix", w.system_prefix, true);
  w.system_prefixes = static_cast<int>(positive_int(o, "system-prefixes", 1, false, kMaxSystemPrefixes));
  w.turns = dist_or(o, "turns", w.turns, false);
  w.think_time = dist_or(o, "think-time", w.think_time, true);
  w.documents = static_cast<int>(positive_int(o, "documents", 0, true, kMaxDocuments));
  w.document_tokens = dist_or(o, "document-tokens", w.document_tokens, true);
  w.document_zipf = positive(o, "document-zipf", 0, true);
  w.documents_round_robin =
      one_of(o, "document-order", "popularity", {"popularity", "round-robin"}) == "round-robin";
  w.repeat_share = positive(o, "repeat-share", 0, true);
  if (w.repeat_share >= 1) {
    throw UsageError(
        fmt::format("{}: key 'repeat-share' is {}; expected a share from 0 to below 1 (e.g. 0.3)", o.origin(),
                    w.repeat_share));
  }
  w.reset_prefix_cache = o.boolean_or("reset-prefix-cache", false);
  w.client_timeout_s = positive(o, "client-timeout", 0, true, 1e7);
  w.duration_s = positive(o, "duration", 0, true, 1e7);
  w.clip_long_prompts = one_of(o, "over-length", "reject", {"reject", "clip"}) == "clip";
  if (w.documents > 0 && w.document_tokens.expected() <= 0) {
    throw UsageError(fmt::format("{}: key 'documents' is {} but 'document-tokens' is missing or 0",
                                 o.origin(), w.documents));
  }
  o.reject_unknown_keys({"requests", "arrival", "prompt", "output", "system-prefix", "system-prefixes",
                         "turns", "think-time", "documents", "document-tokens", "document-zipf",
                         "document-order", "repeat-share", "reset-prefix-cache", "over-length",
                         "client-timeout", "duration"});
  return w;
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

}  // namespace

namespace {

// The server keys, read in the table's order (sim/server_fields.hpp).
ServerSpec parse_server(const YamlObject& o) {
  ServerSpec v;
  for (const auto& f : server_fields()) f.from_yaml(o, v);
  return v;
}

std::vector<std::string> server_keys() {
  std::vector<std::string> keys;
  for (const auto& f : server_fields()) keys.push_back(f.key);
  return keys;
}

}  // namespace

Scenario scenario_from_node(const YAML::Node& root, const std::string& origin) {
  const YamlObject o(root, origin);
  Scenario s;
  s.origin = printable_path(origin);  // a label in output: a path's raw bytes may not fit JSON
  s.source = YAML::Clone(root);
  s.name = o.str_or("name", printable_path(std::filesystem::path(origin).stem().string()));
  s.description = o.str_or("description", "");
  s.seed = static_cast<std::uint64_t>(positive_int(o, "seed", 1, true, kMaxSeed));
  s.server = parse_server(o);
  s.fleet.replicas = checked_replicas(o.integer_or("replicas", 1), origin + ": key 'replicas'");
  if (o.has("router")) s.fleet.router = parse_router(o.str("router"), origin + ": key 'router'");
  if (o.has("calibration")) s.calibration = parse_calibration(o.object("calibration"), origin);
  if (!o.has("workload")) throw UsageError(fmt::format("{}: missing required key 'workload'", origin));
  s.workload = parse_workload(o.object("workload"));
  if (o.has("sweep")) {
    s.sweep = parse_sweep(o.object("sweep"));
    check_sweep_points(s.sweep, fmt::format("{}: key 'sweep'", origin));  // where, for its errors
  }
  auto keys = server_keys();
  for (const char* k :
       {"name", "description", "seed", "replicas", "router", "calibration", "workload", "sweep"})
    keys.push_back(k);
  o.reject_unknown_keys(keys);
  return s;
}

Scenario parse_scenario(const std::string& text, const std::string& origin) {
  return scenario_from_node(YamlObject::parse(text, origin).node(), origin);
}

namespace {

// A scenario's relative `hardware:` or `model:` path, read from the scenario's folder (as a path
// inside any file is), not from wherever kvbench runs; a missing file is refused naming the
// scenario and the key. Names (h100, a catalog model, a Hugging Face id) stay as they are.
std::string from_folder(const std::string& value, const std::filesystem::path& folder,
                        const std::string& file, const char* key, bool is_path) {
  namespace fs = std::filesystem;
  if (value.empty() || fs::path(value).is_absolute()) return value;
  if (!is_path && value.find('/') == std::string::npos) return value;  // a name, not a path
  const auto rebased = (folder / value).lexically_normal();
  std::error_code ec;
  if (fs::exists(rebased, ec)) return rebased.string();
  if (!is_path) return value;
  throw UsageError(fmt::format(
      "{}: key '{}' names '{}', and no such file is in the scenario's folder ('{}'); expected a path "
      "relative to the scenario file, an absolute path or a catalog name",
      printable_path(file), key, printable_path(value), printable_path(rebased.string())));
}

// A model path: what resolve_model would read as a file rather than a name or a Hugging Face id.
bool looks_like_model_path(const std::string& v) {
  return v.ends_with(".json") || v.ends_with(".yaml") || v.ends_with(".yml") || v.starts_with("./") ||
         v.starts_with("../");
}

}  // namespace

Scenario with_paths_from_folder(Scenario s, const std::string& file) {
  const auto folder = std::filesystem::path(file).parent_path();
  const auto hardware =
      from_folder(s.server.hardware, folder, file, "hardware", is_hardware_file(s.server.hardware));
  const auto model =
      from_folder(s.server.model, folder, file, "model", looks_like_model_path(s.server.model));
  if (hardware == s.server.hardware && model == s.server.model) return s;
  // Written into the document too, so every override and sweep point re-reads the same file.
  s.source["hardware"] = s.server.hardware = hardware;
  s.source["model"] = s.server.model = model;
  return s;
}

std::vector<std::string> shipped_scenario_names() {
  std::vector<std::string> names;
  for (const auto& e : catalog_entries("workloads")) names.push_back(e.name);
  return names;
}

Scenario load_scenario(const std::string& name_or_path) {
  for (const auto& e : catalog_entries("workloads")) {
    if (e.name == name_or_path) return parse_scenario(std::string(e.content), e.origin);
  }
  if (std::error_code ec; std::filesystem::is_directory(name_or_path, ec)) {
    throw UsageError(
        fmt::format("scenario '{}': is a directory; expected a shipped scenario name or a scenario YAML "
                    "file",
                    name_or_path));
  }
  if (std::filesystem::is_regular_file(name_or_path)) {
    return with_paths_from_folder(parse_scenario(read_text_file(name_or_path, "scenario"), name_or_path),
                                  name_or_path);
  }
  const auto names = shipped_scenario_names();
  const auto near = closest_names(name_or_path, names, 1);
  throw UsageError(fmt::format(
      "scenario '{}': neither a shipped scenario nor a readable file{}; shipped: {}", name_or_path,
      near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near.front()), join(names, ", ")));
}

Scenario with_override(const Scenario& s, const std::string& key, const std::string& value,
                       const std::string& what) {
  YAML::Node root = YAML::Clone(s.source);
  const auto parts = split(key, '.');
  if (key.empty() || parts.empty()) throw UsageError(fmt::format("{}: empty key", what));
  YAML::Node value_node;
  try {
    value_node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{} {}={}: the value is not valid YAML: {}", what, key, value, e.msg));
  }
  YamlObject::check_tree(value_node, fmt::format("{} {}", what, key));
  // yaml-cpp nodes are handles: walk with fresh handles so assignment does not rebind the parent.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = chain.back()[parts[i]];
    if (child && !child.IsMap()) {
      throw UsageError(fmt::format("{} {}: '{}' is not a mapping in {}", what, key, parts[i], s.origin));
    }
    chain.push_back(child);
  }
  chain.back()[parts.back()] = value_node;
  try {
    auto out = scenario_from_node(root, s.origin);
    // A calibration given beside the file (--calibration) is not in its YAML: it carries over to
    // every override and sweep point unless the override sets calibration keys itself.
    if (parts.front() != "calibration") out.calibration = s.calibration;
    out.trace = s.trace;  // a trace given beside the file (--trace) is not in its YAML either
    return out;
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} {}={}: {}", what, key, value, e.what()));
  }
}

bool is_server_key(const std::string& key) {
  const auto& fields = server_fields();
  return std::any_of(fields.begin(), fields.end(), [&](const ServerField& f) { return f.key == key; });
}

YAML::Node server_to_yaml(const ServerSpec& v) {
  YAML::Node n;
  for (const auto& f : server_fields()) f.to_yaml(v, n);
  return n;
}

Scenario with_server(const Scenario& s, const ServerSpec& server) {
  YAML::Node root = s.source.IsMap() ? YAML::Clone(s.source) : YAML::Node(YAML::NodeType::Map);
  for (const auto& f : server_fields()) root.remove(f.key);
  for (const auto& kv : server_to_yaml(server)) root[kv.first.as<std::string>()] = kv.second;
  if (!std::as_const(root)["workload"]) {
    // A trace's scenario (size --trace) has no workload document: the server alone is re-read.
    Scenario out = s;
    out.server = parse_server(YamlObject(root, s.origin));
    out.source = root;
    return out;
  }
  auto out = scenario_from_node(root, s.origin);
  out.calibration = s.calibration;
  out.trace = s.trace;
  return out;
}

Scenario with_fleet(const Scenario& s, const FleetSpec& fleet) {
  if (!s.source.IsMap() || !std::as_const(s.source)["workload"]) {
    Scenario out = s;
    out.fleet = fleet;
    return out;
  }
  YAML::Node root = YAML::Clone(s.source);
  root["replicas"] = fleet.replicas;
  root["router"] = to_string(fleet.router);
  auto out = scenario_from_node(root, s.origin);
  out.calibration = s.calibration;
  out.trace = s.trace;
  return out;
}

SweepAxis parse_sweep_axis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw UsageError(
        fmt::format("--sweep '{}': expected KEY=V1,V2,... (e.g. kv-offloading-size=0,16,64)", text));
  }
  SweepAxis a;
  a.key = text.substr(0, eq);
  for (const auto& v : split(text.substr(eq + 1), ',')) {
    if (v.empty()) throw UsageError(fmt::format("--sweep '{}': an empty value in the list", text));
    a.values.push_back(v);
  }
  return a;
}

void check_sweep_points(const std::vector<SweepAxis>& axes, const std::string& what) {
  std::int64_t points = 1;
  for (const auto& a : axes) {
    points *= static_cast<std::int64_t>(std::max<std::size_t>(a.values.size(), 1));
    if (points > kMaxSweepPoints) {
      throw UsageError(
          fmt::format("{}: the sweep has more than {} points; expected fewer values (each point is a "
                      "whole simulation)",
                      what, kMaxSweepPoints));
    }
  }
}

}  // namespace kvb
