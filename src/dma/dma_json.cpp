#include "dma/dma_json.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"
#include "kvbench_config.hpp"

namespace kvb {

namespace {

// Other work on a GPU when the run started (GPU backends only: the host backend writes none).
void add_occupancy(nlohmann::json& j, const GpuOccupancy& o) {
  using nlohmann::json;
  json others = json::array();
  for (const auto& p : o.others) {
    others.push_back({{"pid", p.pid},
                      {"name", p.name},
                      {"used_bytes", p.used_bytes >= 0 ? json(p.used_bytes) : json(nullptr)}});
  }
  j["other_gpu_processes"] = others;
  j["gpu_utilization_percent"] = o.utilization_percent >= 0 ? json(o.utilization_percent) : json(nullptr);
  j["occupancy_queried"] = o.queried;
  j["occupancy_source"] = o.source;
}

GpuOccupancy occupancy_from_json(const nlohmann::json& j, const std::string& where) {
  GpuOccupancy o;
  o.source = j.at("occupancy_source").get<std::string>();
  o.queried = j.value("occupancy_queried", false);
  const auto& u = j.value("gpu_utilization_percent", nlohmann::json(nullptr));
  if (!u.is_null())
    o.utilization_percent = static_cast<int>(json_integer_in(j, "gpu_utilization_percent", 0, 100, where));
  for (const auto& p : j.value("other_gpu_processes", nlohmann::json::array())) {
    GpuProcess g;
    g.pid = static_cast<unsigned>(json_integer_in(p, "pid", 0, 1LL << 32, where));
    g.name = p.value("name", std::string());
    if (p.contains("used_bytes") && !p.at("used_bytes").is_null()) {
      g.used_bytes = json_number_in(p, "used_bytes", 0, 1e15, where);
    }
    o.others.push_back(g);
  }
  return o;
}

// What was measured and where: the device, the host, the case as planned.
nlohmann::json record_identity(const DmaRecord& r) {
  const auto& c = r.tcase;
  nlohmann::json j;
  j["id"] = r.id;
  j["backend"] = r.device.backend;
  j["device"] = r.device.name;
  j["device_index"] = r.device.index;
  j["pci_bus_id"] = r.device.pci_bus_id;
  j["driver_version"] = r.device.driver_version;
  j["driver_api_version"] = r.device.driver_api_version;
  j["runtime_version"] = r.device.runtime_version;
  if (!r.device.environment.empty()) j["environment"] = r.device.environment;
  if (!r.device.occupancy.source.empty()) add_occupancy(j, r.device.occupancy);
  j["timing"] = r.device.timing;
  j["link"] = r.device.link;
  j["link_ceiling_gbps"] = r.device.link_ceiling_gbps;
  j["host_cpu"] = r.host_cpu;
  j["hostname"] = r.hostname;
  j["numa_node"] = c.numa_node >= 0 ? c.numa_node : r.device.numa_node;  // asked for (or the GPU's)
  j["host_numa_node"] = r.host_numa_node;  // where the host pool's pages are, read back; -1 unknown
  j["host_mem"] = to_string(c.host_mem);
  j["method"] = to_string(c.method);
  j["direction"] = to_string(c.direction);
  j["layout"] = to_string(c.layout);
  j["layers"] = c.layers;
  j["block_bytes"] = c.block_bytes;
  j["blocks"] = c.blocks;
  j["gpu_pool_blocks"] = c.gpu_pool_blocks;
  j["host_pool_blocks"] = c.host_pool_blocks;
  j["ctas"] = c.ctas;
  j["seed"] = c.seed;
  j["with_compute"] = c.with_compute;
  j["waived"] = r.waived;
  j["case_seconds"] = r.case_s;
  j["pool_setup_seconds"] = r.pool_setup_s;
  return j;
}

// A measured (not waived) record's samples, statistics and verification.
void add_measurement(nlohmann::json& j, const DmaRecord& r) {
  const auto& c = r.tcase;
  j["bytes_per_transfer"] = r.bytes;
  j["samples"] = r.samples_s;
  j["wall_samples"] = r.wall_samples_s;
  j["median_gbps"] = r.median_gbps;
  j["p10_gbps"] = r.p10_gbps;
  j["p90_gbps"] = r.p90_gbps;
  j["min_gbps"] = r.min_gbps;
  j["max_gbps"] = r.max_gbps;
  j["wall_gbps"] = r.wall_gbps;
  if (c.direction == Direction::kBidir) {
    j["h2d_gbps"] = r.h2d_gbps;
    j["d2h_gbps"] = r.d2h_gbps;
    j["bidir_note"] =
        "median_gbps is the sum of both directions (as TransferBench and vLLM's blog report); "
        "h2d_gbps and d2h_gbps are each direction over its own span (as nvbandwidth reports)";
  }
  if (c.with_compute) {
    j["compute_load"] = r.compute_load;
    j["compute_alone_per_s"] = r.compute_alone_per_s;
    j["compute_during_per_s"] = r.compute_during_per_s;
    j["compute_slowdown"] = r.compute_slowdown;
  }
  j["link_utilization"] = r.link_utilization;
  j["relative_noise"] = r.time.relative_noise;
  j["median_precision"] = r.precision;
  j["timed_seconds"] = r.timed_s;
  j["loop_seconds"] = r.loop_s;
  j["converged"] = r.converged;
  j["verified"] = r.verified;
  if (!r.verified) j["verify_detail"] = r.verify_detail;
}

// --device all: each case's sum over the devices that copied at once.
void add_aggregates(nlohmann::json& doc, const std::vector<DmaRecord>& records) {
  using nlohmann::json;
  const auto aggregates = aggregate_devices(records);
  if (!aggregates.empty()) {
    doc["aggregates"] = json::array();
    for (const auto& a : aggregates) {
      doc["aggregates"].push_back({{"id", a.id},
                                   {"devices", a.devices},
                                   {"median_gbps", a.median_gbps},
                                   {"h2d_gbps", a.h2d_gbps},
                                   {"d2h_gbps", a.d2h_gbps},
                                   {"note",
                                    "sum of each device's median, every sample taken while all devices "
                                    "copied"}});
    }
  }
}

}  // namespace

nlohmann::json dma_json(const std::vector<DmaRecord>& records) {
  using nlohmann::json;
  json doc;
  doc["schema"] = kDmaSchema;
  doc["tool"] = std::string("kvbench ") + KVBENCH_VERSION;
  doc["unit"] = "GB/s (10^9 bytes per second); samples in seconds per transfer";
  doc["records"] = json::array();
  for (const auto& r : records) {
    auto j = record_identity(r);
    if (r.waived) {
      j["waive_reason"] = r.waive_reason;
    } else {
      add_measurement(j, r);
    }
    doc["records"].push_back(j);
  }
  add_aggregates(doc, records);
  return doc;
}

namespace {

// The device and host a record was measured on (the keys record_identity writes).
void read_device(const nlohmann::json& j, DmaRecord& r, const std::string& where) {
  r.device.backend = j.at("backend").get<std::string>();
  r.device.name = j.at("device").get<std::string>();
  r.device.index = static_cast<int>(json_integer_or(j, "device_index", 0, 1 << 16, 0, where));
  r.device.pci_bus_id = j.value("pci_bus_id", std::string());
  r.device.driver_version = j.value("driver_version", std::string());
  r.device.driver_api_version = j.value("driver_api_version", std::string());
  r.device.environment = j.value("environment", std::vector<std::string>());
  if (j.contains("occupancy_source")) r.device.occupancy = occupancy_from_json(j, where);
  r.device.runtime_version = j.value("runtime_version", std::string());
  r.device.link = j.value("link", std::string());
  r.device.timing = j.value("timing", std::string());
  r.device.link_ceiling_gbps = json_number_or(j, "link_ceiling_gbps", 0, kMaxGbps, 0.0, where);
  r.host_cpu = j.value("host_cpu", std::string());
  r.hostname = j.value("hostname", std::string());
  r.host_numa_node = static_cast<int>(json_integer_or(j, "host_numa_node", -1, 1 << 16, -1, where));
}

// The case as planned. Every count read into 64 bits and range-checked (core/json_file): nothing wraps.
void read_case(const nlohmann::json& j, TransferCase& c, const std::string& where) {
  c.method = parse_method(j.at("method").get<std::string>(), where + ": method");
  c.direction = parse_direction(j.at("direction").get<std::string>(), where + ": direction");
  c.layout = parse_layout(j.at("layout").get<std::string>(), where + ": layout");
  c.host_mem = parse_host_mem(j.at("host_mem").get<std::string>(), where + ": host_mem");
  c.layers = static_cast<int>(json_integer_in(j, "layers", 1, 1024, where));
  c.block_bytes =
      static_cast<std::uint64_t>(json_integer_in(j, "block_bytes", 1, std::int64_t{1} << 40, where));
  c.blocks = json_integer_in(j, "blocks", 1, kMaxCount, where);
  c.numa_node = static_cast<int>(json_integer_or(j, "numa_node", -1, 1 << 16, -1, where));
  c.ctas = static_cast<int>(json_integer_or(j, "ctas", 0, 1 << 20, 0, where));
  c.gpu_pool_blocks = json_integer_or(j, "gpu_pool_blocks", 0, kMaxCount, 0, where);
  c.host_pool_blocks = json_integer_or(j, "host_pool_blocks", 0, kMaxCount, 0, where);
  // The data pattern's seed: the full 64 bits, as the writer wrote them.
  if (const auto it = j.find("seed"); it != j.end() && it->is_number_unsigned())
    c.seed = it->get<std::uint64_t>();
  c.with_compute = j.value("with_compute", false);
}

// A measured record's samples and figures (the keys add_measurement writes).
void read_measurement(const nlohmann::json& j, DmaRecord& r, const std::string& where) {
  r.bytes = json_number_in(j, "bytes_per_transfer", 1, 1e15, where);
  r.samples_s = j.at("samples").get<std::vector<double>>();
  r.wall_samples_s = j.value("wall_samples", std::vector<double>());
  r.time = summarize(r.samples_s);
  r.median_gbps = json_number_in(j, "median_gbps", 0, kMaxGbps, where);
  r.p10_gbps = json_number_in(j, "p10_gbps", 0, kMaxGbps, where);
  r.p90_gbps = json_number_in(j, "p90_gbps", 0, kMaxGbps, where);
  r.min_gbps = json_number_or(j, "min_gbps", 0, kMaxGbps, 0.0, where);
  r.max_gbps = json_number_or(j, "max_gbps", 0, kMaxGbps, 0.0, where);
  r.wall_gbps = json_number_or(j, "wall_gbps", 0, kMaxGbps, 0.0, where);
  r.h2d_gbps = json_number_or(j, "h2d_gbps", 0, kMaxGbps, 0.0, where);
  r.d2h_gbps = json_number_or(j, "d2h_gbps", 0, kMaxGbps, 0.0, where);
  r.link_utilization = json_number_or(j, "link_utilization", 0, 100, 0.0, where);
  r.compute_load = j.value("compute_load", std::string());
  r.compute_alone_per_s = j.value("compute_alone_per_s", 0.0);
  r.compute_during_per_s = j.value("compute_during_per_s", 0.0);
  r.compute_slowdown = j.value("compute_slowdown", 0.0);
  r.converged = j.value("converged", false);
  r.precision = j.value("median_precision", 0.0);
  r.timed_s = j.value("timed_seconds", 0.0);
  r.loop_s = j.value("loop_seconds", 0.0);
  r.verified = j.at("verified").get<bool>();
  r.verify_detail = j.value("verify_detail", std::string());
}

// Impossible figures are a broken file, not a measurement (a zero block would divide by zero in
// every reader; a sample must be a time a copy can take: above 1 ns, and no link beats it).
void check_record(const DmaRecord& r, const std::string& origin) {
  const auto& c = r.tcase;
  if (c.blocks < 1 || c.layers < 1 || c.ctas < 0 || r.device.index < 0) {
    throw UsageError(
        fmt::format("{}: record {} has blocks {}, layers {}, ctas {}, device_index {}; expected "
                    "positive counts",
                    origin, r.id, c.blocks, c.layers, c.ctas, r.device.index));
  }
  if (r.waived) return;
  if (!(r.bytes > 0) || r.samples_s.empty()) {
    throw UsageError(
        fmt::format("{}: record {} has no samples or no bytes_per_transfer; expected a measured record "
                    "(or \"waived\": true)",
                    origin, r.id));
  }
  const double min_s = std::max(1e-9, r.bytes / (kMaxGbps * 1e9));
  const auto bad = std::find_if(r.samples_s.begin(), r.samples_s.end(),
                                [&](double x) { return !(x >= min_s) || !(x <= 1e7); });
  if (bad != r.samples_s.end()) {
    throw UsageError(fmt::format(
        "{}: record {} has a sample of {:g} s (samples_s[{}]); expected seconds from {:g} (no link moves "
        "{:g} bytes faster) to 1e7",
        origin, r.id, *bad, bad - r.samples_s.begin(), min_s, r.bytes));
  }
  if (!(r.median_gbps >= 0)) {
    throw UsageError(fmt::format("{}: record {} has median_gbps {:g}; expected a rate of 0 or more", origin,
                                 r.id, r.median_gbps));
  }
}

DmaRecord record_from_json(const nlohmann::json& j, const std::string& origin) {
  DmaRecord r;
  r.id = j.at("id").get<std::string>();
  const auto where = fmt::format("{}: record {}", origin, r.id);
  read_device(j, r, where);
  read_case(j, r.tcase, where);
  r.case_s = json_number_or(j, "case_seconds", 0, 1e7, 0.0, where);
  r.pool_setup_s = json_number_or(j, "pool_setup_seconds", 0, 1e7, 0.0, where);
  r.waived = j.at("waived").get<bool>();
  if (r.waived) {
    r.waive_reason = j.value("waive_reason", std::string());
  } else {
    read_measurement(j, r, where);
  }
  check_record(r, origin);
  return r;
}

}  // namespace

std::vector<DmaRecord> dma_records_from_json(const nlohmann::json& doc, const std::string& origin) {
  if (schema_of(doc) != kDmaSchema) {
    throw UsageError(
        fmt::format("{}: not a kvbench dma result (expected \"schema\": \"{}\")", origin, kDmaSchema));
  }
  std::vector<DmaRecord> out;
  try {
    for (const auto& j : doc.at("records")) out.push_back(record_from_json(j, origin));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed dma record ({})", origin, json_error_text(e)));
  }
  return out;
}

}  // namespace kvb
