#pragma once
// The one list of a server's fields (issue 35 §1): each field's scenario key, its flag where size,
// simulate, trace, calibrate and report take one, its help, and the functions that read it from a flag and
// from a scenario and write it back. The scenario's reader, writer and known keys and the CLI's
// server flags all walk this table, so a field is added once. Each reader keeps its own checks and
// refusals: a flag names the flag, a key names the file and the key.
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace YAML {
class Node;  // the readers and writers see yaml-cpp; the table's users (the CLI's flags) need not
}

namespace kvb {

class YamlObject;

// How a context length may be written, for every flag that takes one (--max-model-len, report's --ctx).
inline constexpr const char* kContextLengthForms = "context length: 131072, 128k (x1000), 128K (x1024), 1M";

struct ServerField {
  std::string key;    // the scenario key, and the YAML writer's
  std::string flags;  // CLI11's names ("--tensor-parallel-size,--tp"); empty: a scenario key only
  std::string help;
  bool parallelism = false;  // --tp and --pp: calibrate takes its own --tp (the GEMM timer's ranks)
  bool is_switch = false;    // a flag without a value (--disable-hybrid-kv-cache-manager)
  void (*from_flag)(const std::string& text, ServeSettings& v) = nullptr;  // null: no flag
  void (*from_yaml)(const YamlObject& o, ServerSpec& v) = nullptr;
  void (*to_yaml)(const ServerSpec& v, YAML::Node& n) = nullptr;
  // Whether the field changes the GPU KV pool or a token's KV bytes (parallelism, memory, batching,
  // weights, the KV dtype and layout, and the connector and release that decide the layout and the
  // sampler's memory): what trace and report's default assessment take of a server. false: the
  // tiers' sizes, rates and copy method only.
  bool sizes_pool = false;
};

// In the order the writer writes them: model and GPU, parallelism, memory, batching, the tier,
// weights, the simulator's own, the release.
const std::vector<ServerField>& server_fields();
// The secondary tier's fields (sim/secondary_tier_fields.cpp), after the CPU tier's in the table.
std::vector<ServerField> secondary_tier_fields();

// The one description of a server as scenario keys, by the table's writers: every field of
// ServerSpec. parse_server(server_to_yaml(v)) == v (sim/scenario_reader.hpp).
YAML::Node server_to_yaml(const ServerSpec& v);

}  // namespace kvb
