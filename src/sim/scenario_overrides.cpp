// Edits of a typed scenario (sim/scenario.hpp): an override's one key read onto the field it names
// by that key's reader (sim/scenario_reader.hpp: the server's field table, the workload's), a
// server checked by the server keys' readers, a fleet set. Nothing is re-read but the key given.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/errors.hpp"
#include "core/strings.hpp"
#include "sim/scenario.hpp"
#include "sim/scenario_reader.hpp"
#include "sim/server_fields.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {
namespace {

// Where an override's errors point: the flag, its key and the scenario.
struct Edit {
  const std::string& what;
  const std::string& key;
  const std::string& origin;
};

YAML::Node parsed_value(const std::string& value, const Edit& e) {
  YAML::Node node;
  try {
    node = YAML::Load(value);
  } catch (const YAML::Exception& ex) {
    throw UsageError(fmt::format("{} {}={}: the value is not valid YAML: {}", e.what, e.key, value, ex.msg));
  }
  YamlObject::check_tree(node, fmt::format("{} {}", e.what, e.key));
  return node;
}

// `value` set at parts[from..] inside the mapping `root`, each step a mapping (made where absent).
void set_path(YAML::Node root, const std::vector<std::string>& parts, std::size_t from,
              const YAML::Node& value, const Edit& e) {
  // yaml-cpp nodes are handles: walk with fresh handles so assignment does not rebind the parent.
  std::vector<YAML::Node> chain{std::move(root)};
  for (std::size_t i = from; i + 1 < parts.size(); ++i) {
    YAML::Node child = chain.back()[parts[i]];
    if (child && !child.IsMap()) {
      throw UsageError(fmt::format("{} {}: '{}' is not a mapping in {}", e.what, e.key, parts[i], e.origin));
    }
    chain.push_back(child);
  }
  chain.back()[parts.back()] = value;
}

// The arrival as its keys, for an edit of one of them (the others as read).
YAML::Node arrival_keys(const ArrivalSpec& a) {
  YAML::Node n(YAML::NodeType::Map);
  switch (a.process) {
    case ArrivalProcess::kClosed:
      n["process"] = "closed";
      n["users"] = a.users;
      return n;
    case ArrivalProcess::kBursty:
      n["process"] = "bursty";
      n["rate"] = a.rate;
      n["burst-seconds"] = a.burst_seconds;
      n["idle-seconds"] = a.idle_seconds;
      return n;
    case ArrivalProcess::kFixed:
      n["process"] = "fixed";
      break;
    case ArrivalProcess::kPoisson:
      n["process"] = "poisson";
      break;
  }
  n["rate"] = a.rate;
  return n;
}

// A distribution as its keys (min and max only where set: 0 is none), for an edit of one of them.
YAML::Node distribution_keys(const Distribution& d) {
  YAML::Node n(YAML::NodeType::Map);
  using Kind = Distribution::Kind;
  if (d.kind == Kind::kFixed) {
    n["distribution"] = "fixed";
    n["value"] = d.value;
    return n;
  }
  if (d.kind == Kind::kUniform) {
    n["distribution"] = "uniform";
    n["min"] = d.min;
    n["max"] = d.max;
    return n;
  }
  if (d.kind == Kind::kLognormal) {
    n["distribution"] = "lognormal";
    n["median"] = d.median;
    n["sigma"] = d.sigma;
  } else {
    n["distribution"] = "exponential";
    n["mean"] = d.mean;
  }
  if (d.min > 0) n["min"] = d.min;
  if (d.max > 0) n["max"] = d.max;
  return n;
}

// The workload key `key` as its keys, for an edit below it: the arrival and the distributions are
// mappings; a plain value is refused; an unknown key starts empty (its reader names it).
YAML::Node workload_keys(const WorkloadSpec& w, const std::string& key, const Edit& e) {
  if (key == "arrival") return arrival_keys(w.arrival);
  const std::pair<const char*, const Distribution*> distributions[] = {
      {"prompt", &w.prompt}, {"output", &w.output},         {"system-prefix", &w.system_prefix},
      {"turns", &w.turns},   {"think-time", &w.think_time}, {"document-tokens", &w.document_tokens}};
  for (const auto& [name, d] : distributions) {
    if (key == name) return distribution_keys(*d);
  }
  if (is_workload_key(key)) {
    throw UsageError(fmt::format("{} {}: '{}' is not a mapping in {}", e.what, e.key, key, e.origin));
  }
  return YAML::Node(YAML::NodeType::Map);
}

enum class Level { kTop, kWorkload, kCalibration, kSweep };

// The level an override's key reads at, and the one key it sets there (a mapping of one entry).
std::pair<Level, YAML::Node> one_key(const Scenario& s, const std::vector<std::string>& parts,
                                     const YAML::Node& value, const Edit& e) {
  YAML::Node one(YAML::NodeType::Map);
  if (parts.size() == 1) {
    one[parts.front()] = value;
    return {Level::kTop, one};
  }
  const auto& head = parts.front();
  const bool nested = head == "workload" || head == "calibration" || head == "sweep";
  if (is_scenario_key(head) && !nested)
    throw UsageError(fmt::format("{} {}: '{}' is not a mapping in {}", e.what, e.key, head, e.origin));
  if (!nested) {  // an unknown key: read at the top, where its name is refused
    set_path(one, parts, 0, value, e);
    return {Level::kTop, one};
  }
  const auto& key = parts[1];
  if (parts.size() == 2) {
    one[key] = value;
  } else {
    YAML::Node below =
        head == "workload" ? workload_keys(s.workload, key, e) : YAML::Node(YAML::NodeType::Map);
    set_path(below, parts, 2, value, e);
    one[key] = below;
  }
  return {head == "workload"      ? Level::kWorkload
          : head == "calibration" ? Level::kCalibration
                                  : Level::kSweep,
          one};
}

// The sweep's axes with those `one` lists: an axis already there replaced in place, a new one last.
void read_sweep_axes(const YamlObject& one, Scenario& s) {
  for (auto& axis : parse_sweep(one)) {
    const auto at =
        std::find_if(s.sweep.begin(), s.sweep.end(), [&](const auto& a) { return a.key == axis.key; });
    if (at != s.sweep.end()) {
      *at = std::move(axis);
    } else {
      s.sweep.push_back(std::move(axis));
    }
  }
  check_sweep_points(s.sweep, fmt::format("{}: key 'sweep'", s.origin));
}

void read_one_key(Level level, const YAML::Node& one, Scenario& s) {
  const auto& origin = s.origin;
  switch (level) {
    case Level::kTop:
      read_scenario_keys(YamlObject(one, origin), s, false);
      return;
    case Level::kWorkload:
      read_workload_keys(YamlObject(one, origin + " (workload)"), s.workload, false);
      return;
    case Level::kCalibration: {
      // Over the scenario's calibration; with none, over what an empty `calibration:` block reads as.
      const YamlObject keys(one, origin + " (calibration)");
      const auto base =
          s.calibration
              ? *s.calibration
              : parse_calibration(YamlObject(YAML::Node(YAML::NodeType::Map), keys.origin()), origin);
      s.calibration = calibration_with(keys, base);
      return;
    }
    case Level::kSweep:
      read_sweep_axes(YamlObject(one, origin + " (sweep)"), s);
      return;
  }
}

}  // namespace

Scenario with_override(const Scenario& s, const std::string& key, const std::string& value,
                       const std::string& what) {
  const auto parts = split(key, '.');
  if (key.empty() || parts.empty()) throw UsageError(fmt::format("{}: empty key", what));
  const Edit e{what, key, s.origin};
  const auto [level, one] = one_key(s, parts, parsed_value(value, e), e);
  Scenario out = s;
  try {
    read_one_key(level, one, out);
  } catch (const UsageError& err) {
    throw UsageError(fmt::format("{} {}={}: {}", what, key, value, err.what()));
  }
  return out;
}

Scenario with_server(const Scenario& s, const ServerSpec& server) {
  Scenario out = s;
  // Written by the field table and read back by it: a value the file could not hold is refused as
  // the file's would be, and the server is the one a scenario file states (nothing beside it).
  out.server = parse_server(YamlObject(server_to_yaml(server), s.origin));
  return out;
}

Scenario with_fleet(const Scenario& s, const FleetSpec& fleet) {
  Scenario out = s;
  out.fleet = fleet;
  return out;
}

}  // namespace kvb
