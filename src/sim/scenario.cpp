#include "sim/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "catalog/embedded_files.hpp"
#include "catalog/hardware_spec.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "sim/server_fields.hpp"

namespace kvb {

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
  s.server.hardware = hardware;
  s.server.model = model;
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

bool is_server_key(const std::string& key) {
  const auto& fields = server_fields();
  return std::any_of(fields.begin(), fields.end(), [&](const ServerField& f) { return f.key == key; });
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
