// libFuzzer target: scenario YAML, calibration files (calibrate's file with its `measured` block),
// hardware YAML and model YAML (size --model FILE.yaml): the same YAML reader. Any input ends in a
// scenario, a calibration, a hardware or model spec or a UsageError naming the file and key, never
// a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "catalog/hardware_spec.hpp"
#include "catalog/model_catalog.hpp"
#include "core/errors.hpp"
#include "core/yaml_reader.hpp"
#include "perf/calibration.hpp"
#include "sim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto s = kvb::parse_scenario(text, "fuzz.yaml");
    // What reaches JSON output must be UTF-8 (dump throws otherwise), and the counts that size a
    // run must be within their caps (issue 26 §2, §3).
    (void)nlohmann::json({s.name, s.description, s.server.model}).dump();
    if (s.workload.requests > kvb::kMaxRequests || s.workload.arrival.users > kvb::kMaxClosedUsers)
      std::abort();
  } catch (const kvb::UsageError&) {
  }
  try {
    (void)kvb::parse_calibration(kvb::YamlObject::parse(text, "fuzz.yaml"), "fuzz.yaml");
  } catch (const kvb::UsageError&) {
  }
  try {
    (void)kvb::hardware_from_yaml(text, "fuzz.yaml");
  } catch (const kvb::UsageError&) {
  }
  try {
    (void)kvb::model_from_yaml(text, "fuzz.yaml");
  } catch (const kvb::UsageError&) {
  }
  return 0;
}
