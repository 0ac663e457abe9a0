#pragma once
// The scenario's YAML reader (sim/scenario_reader.cpp): the one place its keys are read, a whole
// file at once (parse_scenario) or the one key an override sets (sim/scenario_overrides.cpp), by
// the same readers and checks. Only these two files see a scenario as YAML.
#include <string>
#include <vector>

#include "core/yaml_reader.hpp"
#include "sim/scenario.hpp"

namespace kvb {

// The scenario's top-level keys `o` holds, read onto `s`: a whole file (`whole`: every server key's
// reader runs, so `model` is required, and `workload` is required) or one override's key. Unknown
// keys are refused naming the nearest known one.
void read_scenario_keys(const YamlObject& o, Scenario& s, bool whole);
// The workload's keys `o` holds read onto `w` (`whole`: `arrival` required), then the checks across
// keys (documents need document-tokens) and the unknown keys refused.
void read_workload_keys(const YamlObject& o, WorkloadSpec& w, bool whole);
// Whether `key` is one a scenario file may hold at its top level (the server's and its own), and
// one its workload may hold.
bool is_scenario_key(const std::string& key);
bool is_workload_key(const std::string& key);
// The sweep axes a `sweep:` mapping lists, each a non-empty list of plain values.
std::vector<SweepAxis> parse_sweep(const YamlObject& o);
// Every server key read onto a fresh ServerSpec (sim/server_fields.hpp).
ServerSpec parse_server(const YamlObject& o);

}  // namespace kvb
