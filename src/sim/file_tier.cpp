#include "sim/file_tier.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

namespace {

void refuse_unrunnable(const Scenario& s) {
  const auto& v = s.server;
  if (!v.kv_offloading_size)
    throw UsageError(
        fmt::format("{}: kv-offloading-medium file needs kv-offloading-size (--kv-offloading-size): "
                    "the room the file system gives the tier",
                    s.origin));
  if (v.secondary_tier_size && *v.secondary_tier_size > 0)
    throw UsageError(
        fmt::format("{}: kv-offloading-medium file is the one tier; a secondary tier "
                    "(secondary-tier-size) behind it is not simulated",
                    s.origin));
  if (v.kv_offloading_backend != OffloadingBackend::kNative)
    throw UsageError(
        fmt::format("{}: kv-offloading-medium file is the native OffloadingConnector with "
                    "llm-d's file-system spec; kv-offloading-backend {} is not simulated with it",
                    s.origin, to_string(v.kv_offloading_backend)));
  if (!v.secondary_read_gbps || !v.secondary_write_gbps)
    throw UsageError(
        fmt::format("{}: kv-offloading-medium file needs the file system's read and write rates: "
                    "secondary-read-gbps and secondary-write-gbps (--secondary-read-gbps, "
                    "--secondary-write-gbps)",
                    s.origin));
  if (v.secondary_latency_us != 0)
    throw UsageError(
        fmt::format("{}: secondary-latency-us is not simulated with kv-offloading-medium file "
                    "(a tier's latency per chunk is the secondary tier's); expected 0 or none",
                    s.origin));
}

}  // namespace

std::optional<FileTierFigures> file_tier_figures(const Scenario& s) {
  const auto& v = s.server;
  if (v.kv_offloading_medium == OffloadMedium::kCpuAndFile &&
      !(v.secondary_tier_size && *v.secondary_tier_size > 0))
    throw UsageError(
        fmt::format("{}: kv-offloading-medium cpu+file needs the file tier's room: "
                    "secondary-tier-size (--secondary-tier-size)",
                    s.origin));
  if (v.kv_offloading_medium != OffloadMedium::kCpu && s.fleet.replicas > 1)
    throw UsageError(fmt::format(
        "{}: kv-offloading-medium {} with replicas {}: the simulator would give each "
        "replica its own files, where llm-d's connector shares them on a shared volume; "
        "not simulated, expected one replica",
        s.origin, v.kv_offloading_medium == OffloadMedium::kFile ? "file" : "cpu+file", s.fleet.replicas));
  if (v.kv_offloading_medium != OffloadMedium::kFile) return std::nullopt;
  refuse_unrunnable(s);
  if (*v.kv_offloading_size <= 0) return std::nullopt;  // no connector: nothing to run
  return FileTierFigures{.read_bytes_per_s = *v.secondary_read_gbps * 1e9,
                         .write_bytes_per_s = *v.secondary_write_gbps * 1e9,
                         .stated = v.secondary_rates_source.empty()};
}

LinkProfile file_tier_link(const FileTierFigures& f, int world_size, const LinkProfile& host_link) {
  LinkProfile p = host_link;  // its origin and the copy kernel's slowdown stay the GPU link's
  const double ranks = world_size > 0 ? world_size : 1;
  p.h2d = LinkCurve{.gbps = f.read_bytes_per_s / 1e9 / ranks, .per_copy_s = 0};
  p.d2h = LinkCurve{.gbps = f.write_bytes_per_s / 1e9 / ranks, .per_copy_s = 0};
  return p;
}

}  // namespace kvb
