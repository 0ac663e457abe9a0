// The secondary tier's server fields (sim/server_fields.hpp): its size, the disk's rates and
// latency, where the rates came from, and its eviction policy; and the medium of the one tier
// (kv-offloading-medium: a file tier takes the same disk's rates). Each is written back only where a
// secondary tier is set, so a server without one reads and writes as before.
#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "sim/server_fields.hpp"
#include "sim/yaml_checks.hpp"

namespace kvb {
namespace {

// GB/s a disk or file system may state: above any NVMe array a node holds, a typo.
constexpr double kMaxDiskGbps = 10'000;
constexpr double kMaxLatencyUs = 10'000'000;  // ten seconds a chunk

void size_from_flag(const std::string& text, ServeSettings& v) {
  v.secondary_tier_size = parse_gib_size(text, "--secondary-tier-size");
}
void size_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.secondary_tier_size.reset();  // null: none, also over an earlier size
  if (o.has("secondary-tier-size") && !o.node()["secondary-tier-size"].IsNull())
    v.secondary_tier_size = positive(o, "secondary-tier-size", 0, true, kMaxTierGib);
}
void size_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.secondary_tier_size) n["secondary-tier-size"] = *v.secondary_tier_size;
}
void read_from_flag(const std::string& text, ServeSettings& v) {
  v.secondary_read_gbps = parse_real_in(text, "--secondary-read-gbps", 0, kMaxDiskGbps);
}
void read_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("secondary-read-gbps"))
    v.secondary_read_gbps = positive(o, "secondary-read-gbps", 0, false, kMaxDiskGbps);
}
void read_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.secondary_read_gbps) n["secondary-read-gbps"] = *v.secondary_read_gbps;
}
void write_from_flag(const std::string& text, ServeSettings& v) {
  v.secondary_write_gbps = parse_real_in(text, "--secondary-write-gbps", 0, kMaxDiskGbps);
}
void write_from_yaml(const YamlObject& o, ServerSpec& v) {
  if (o.has("secondary-write-gbps"))
    v.secondary_write_gbps = positive(o, "secondary-write-gbps", 0, false, kMaxDiskGbps);
}
void write_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.secondary_write_gbps) n["secondary-write-gbps"] = *v.secondary_write_gbps;
}
void latency_from_flag(const std::string& text, ServeSettings& v) {
  const double us = parse_plain_real(text, "--secondary-latency-us");
  if (us > kMaxLatencyUs)
    throw UsageError(
        fmt::format("--secondary-latency-us: {} is above {} (ten seconds a chunk); expected microseconds "
                    "from 0 to {}",
                    text, format_plain_number(kMaxLatencyUs), format_plain_number(kMaxLatencyUs)));
  v.secondary_latency_us = us;
}
void latency_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.secondary_latency_us = positive(o, "secondary-latency-us", 0, true, kMaxLatencyUs);
}
void latency_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.secondary_tier_size) n["secondary-latency-us"] = v.secondary_latency_us;
}
// One line of text: the simulate table prints it after "measured by kvbench storage:".
void source_from_yaml(const YamlObject& o, ServerSpec& v) {
  const auto text = o.str_or("secondary-rates-source", "");
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw UsageError(
        fmt::format("{}: key 'secondary-rates-source' holds a line break or control character; "
                    "expected one line of text (the storage result it came from)",
                    o.origin()));
  v.secondary_rates_source = text;
}
void source_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (!v.secondary_rates_source.empty()) n["secondary-rates-source"] = v.secondary_rates_source;
}
void eviction_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.secondary_eviction_policy = one_of(o, "secondary-eviction-policy", "lru", {"lru", "arc"}) == "arc"
                                    ? EvictionKind::kArc
                                    : EvictionKind::kLru;
}
void eviction_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.secondary_tier_size || v.secondary_eviction_policy != EvictionKind::kLru)
    n["secondary-eviction-policy"] = v.secondary_eviction_policy == EvictionKind::kArc ? "arc" : "lru";
}

OffloadMedium parse_medium(const std::string& text, const std::string& what) {
  if (text == "cpu") return OffloadMedium::kCpu;
  if (text == "file") return OffloadMedium::kFile;
  if (text == "cpu+file") return OffloadMedium::kCpuAndFile;
  throw UsageError(
      fmt::format("{} '{}': expected cpu (host memory, the default), file (llm-d's "
                  "file-system connector) or cpu+file (both under vLLM's MultiConnector)",
                  what, text));
}
void medium_from_flag(const std::string& text, ServeSettings& v) {
  v.kv_offloading_medium = parse_medium(text, "--kv-offloading-medium");
}
void medium_from_yaml(const YamlObject& o, ServerSpec& v) {
  v.kv_offloading_medium =
      parse_medium(o.str_or("kv-offloading-medium", "cpu"), o.origin() + ": key 'kv-offloading-medium'");
}
void medium_to_yaml(const ServerSpec& v, YAML::Node& n) {
  if (v.kv_offloading_medium == OffloadMedium::kFile) n["kv-offloading-medium"] = "file";
  if (v.kv_offloading_medium == OffloadMedium::kCpuAndFile) n["kv-offloading-medium"] = "cpu+file";
}

}  // namespace

std::vector<ServerField> secondary_tier_fields() {
  return {
      {"secondary-tier-size", "--secondary-tier-size",
       "a secondary tier behind the CPU tier (GiB, all ranks): a disk or file system, vLLM >= 0.22's "
       "tiering; needs --kv-offloading-size (docs/simulate.md)",
       false, false, size_from_flag, size_from_yaml, size_to_yaml},
      {"secondary-read-gbps", "--secondary-read-gbps",
       "the secondary tier's read rate, GB/s for the node (stated; or --storage-profile)", false, false,
       read_from_flag, read_from_yaml, read_to_yaml},
      {"secondary-write-gbps", "--secondary-write-gbps",
       "the secondary tier's write rate, GB/s for the node (stated; or --storage-profile)", false, false,
       write_from_flag, write_from_yaml, write_to_yaml},
      {"secondary-latency-us", "--secondary-latency-us",
       "the secondary tier's latency per chunk, microseconds (default 0)", false, false, latency_from_flag,
       latency_from_yaml, latency_to_yaml},
      {"secondary-rates-source", "", "", false, false, nullptr, source_from_yaml, source_to_yaml},
      {"secondary-eviction-policy", "", "", false, false, nullptr, eviction_from_yaml, eviction_to_yaml},
      {"kv-offloading-medium", "--kv-offloading-medium",
       "cpu (the default); file: the kv-offloading-size tier on a file system at the secondary-* rates, "
       "llm-d's file-system connector; cpu+file: a CPU tier and a file tier (secondary-tier-size) side by "
       "side under vLLM's MultiConnector (docs/simulate.md)",
       false, false, medium_from_flag, medium_from_yaml, medium_to_yaml},
  };
}

}  // namespace kvb
