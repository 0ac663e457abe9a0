#include "cli/storage_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"
#include "sim/simulation_setup.hpp"
#include "storage/storage_json.hpp"

namespace kvb {

namespace {

// The chunk size the tier moves: one block on one rank. The scenario is sized once with placeholder
// rates, so a tier vLLM would not run is refused here with the simulator's own words.
double tier_chunk_bytes(const Scenario& s, const std::optional<LinkProfile>& link) {
  ServerSpec probe = s.server;
  probe.secondary_read_gbps = 1;
  probe.secondary_write_gbps = 1;
  // size --workload: the CPU tier is the simulation's to choose; the chunk does not depend on it.
  if (!probe.kv_offloading_size || *probe.kv_offloading_size <= 0) probe.kv_offloading_size = 1;
  return prepare_simulation(with_server(s, probe), link).block_bytes_per_rank;
}

// The usable records at the chunk size nearest `chunk` (log distance), a file per chunk preferred.
std::vector<StorageRecord> nearest(const std::vector<StorageRecord>& records, double chunk) {
  std::vector<StorageRecord> ok;
  for (const auto& r : records)
    if (!r.waived && r.verified && r.read.median_gbps > 0 && r.write.median_gbps > 0) ok.push_back(r);
  if (ok.empty()) return ok;
  const auto distance = [chunk](const StorageRecord& r) {
    return std::abs(std::log(static_cast<double>(r.tcase.chunk_bytes) / chunk));
  };
  const auto best = std::min_element(ok.begin(), ok.end(), [&](const auto& a, const auto& b) {
                      return distance(a) < distance(b);
                    })->tcase.chunk_bytes;
  std::erase_if(ok, [best](const StorageRecord& r) { return r.tcase.chunk_bytes != best; });
  const bool per_chunk = std::any_of(ok.begin(), ok.end(), [](const StorageRecord& r) {
    return r.tcase.layout == StorageLayout::kFilePerChunk;
  });
  if (per_chunk)
    std::erase_if(ok, [](const StorageRecord& r) { return r.tcase.layout != StorageLayout::kFilePerChunk; });
  return ok;
}

}  // namespace

Scenario with_storage_profile(const Scenario& s, const std::string& file,
                              const std::optional<LinkProfile>& link) {
  const auto what = fmt::format("--storage-profile '{}'", printable_path(file));
  if (!s.server.secondary_tier_size)
    throw UsageError(
        fmt::format("{}: the rates are a secondary tier's; set its size (--secondary-tier-size)", what));
  if (s.server.secondary_read_gbps || s.server.secondary_write_gbps)
    throw UsageError(
        fmt::format("{}: the rates are also stated (secondary-read-gbps, secondary-write-gbps); "
                    "give one or the other",
                    what));
  const auto doc = storage_document_from_json(read_json_file(file, what), printable_path(file));
  const double chunk = tier_chunk_bytes(s, link);
  const auto records = nearest(doc.records, chunk);
  if (records.empty())
    throw UsageError(fmt::format("{}: no case measured both directions and verified every read", what));
  const auto& read = *std::max_element(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.read.median_gbps < b.read.median_gbps;
  });
  const auto& write = *std::max_element(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.write.median_gbps < b.write.median_gbps;
  });
  ServerSpec server = s.server;
  server.secondary_read_gbps = read.read.median_gbps;
  server.secondary_write_gbps = write.write.median_gbps;
  server.secondary_rates_source = fmt::format("{} (tier chunk {}): read {}, write {}", printable_path(file),
                                              format_bytes_binary(chunk), read.tcase.id(), write.tcase.id());
  return with_server(s, server);
}

void apply_storage_profile(WorkloadSizingRequest& r, const std::string& file) {
  ServerSpec server;
  static_cast<ServeSettings&>(server) = *r.serve;
  server.model = r.model.value_or(r.scenario.server.model);
  server.hardware = r.hardware.value_or(r.scenario.server.hardware);
  const auto measured = with_storage_profile(with_server(r.scenario, server), file, r.node.link).server;
  r.serve->secondary_read_gbps = measured.secondary_read_gbps;
  r.serve->secondary_write_gbps = measured.secondary_write_gbps;
  r.serve->secondary_rates_source = measured.secondary_rates_source;
}

}  // namespace kvb
