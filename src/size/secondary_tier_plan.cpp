#include "size/secondary_tier_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "catalog/vllm_releases.hpp"
#include "core/errors.hpp"
#include "core/path_text.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

void require_release(const VllmVersion& v, ReleaseChange c, const char* what) {
  if (has_change(v, c)) return;
  const auto& f = release_fact(c);
  throw UsageError(
      fmt::format("--secondary-tier-size: {} is in vLLM {}.{} or later{} ({}); --vllm-version is {}", what,
                  f.from.major, f.from.minor, f.soft ? " (soft)" : "", f.source, to_string(v)));
}

}  // namespace

std::string secondary_kind_name(SecondaryTierKind k) {
  switch (k) {
    case SecondaryTierKind::kSimpleDisk:
      return "simple-disk";
    case SecondaryTierKind::kLmcacheDisk:
      return "lmcache-local-disk";
    case SecondaryTierKind::kSglangFile:
      return "sglang-hicache-file";
    case SecondaryTierKind::kKvbmDisk:
      return "dynamo-kvbm-disk";
    case SecondaryTierKind::kTieringFs:
      break;
  }
  return "vllm-tiering-fs";
}

std::optional<SecondaryTierKind> secondary_kind_from_name(const std::string& name) {
  for (auto k :
       {SecondaryTierKind::kTieringFs, SecondaryTierKind::kSimpleDisk, SecondaryTierKind::kLmcacheDisk,
        SecondaryTierKind::kSglangFile, SecondaryTierKind::kKvbmDisk})
    if (name == secondary_kind_name(k)) return k;
  return std::nullopt;
}

void check_secondary_tier(const ServeSettings& v, EngineKind engine, bool simulated) {
  if (v.kv_offloading_medium != OffloadMedium::kCpu)
    throw UsageError(
        "--kv-offloading-medium file or cpu+file: size writes no command for llm-d's file-system connector; "
        "simulate the tier with kvbench simulate, or expected --kv-offloading-medium cpu");
  if (!v.secondary_tier_size || *v.secondary_tier_size <= 0) return;
  const bool other = engine != EngineKind::kVllm || v.kv_offloading_backend == OffloadingBackend::kLmcache;
  if (simulated && other)
    throw UsageError(fmt::format(
        "--secondary-tier-size with --workload/--trace and --engine {} (--kv-offloading-backend {}): size "
        "simulates vLLM's tiering only; expected --engine vllm with --kv-offloading-backend native, or no "
        "--workload/--trace for the engine's own disk tier",
        to_string(engine), to_string(v.kv_offloading_backend)));
  if (simulated && v.kv_offloading_backend == OffloadingBackend::kSimple)
    throw UsageError(
        "--secondary-tier-size with --workload/--trace and --kv-offloading-backend simple: size simulates "
        "vLLM's tiering (a secondary tier behind the native CPU tier) only; expected --kv-offloading-backend "
        "native, or no --workload/--trace for the Simple disk backend's configuration");
  if (!simulated && (!v.kv_offloading_size || *v.kv_offloading_size <= 0))
    throw UsageError(
        "--secondary-tier-size: a secondary tier needs a CPU tier in front of it, as vLLM's tiering "
        "cascades from the CPU tier; expected --kv-offloading-size N with it");
  if (other) return;  // the engine's own disk tier: no vLLM release gates it
  if (v.kv_offloading_backend == OffloadingBackend::kSimple)
    require_release(v.vllm_version, ReleaseChange::kSimpleDiskBackend, "the Simple connector's disk backend");
  else
    require_release(v.vllm_version, ReleaseChange::kTiering, "vLLM's tiering");
}

std::string check_secondary_tier_dir(const std::string& dir, const ServeSettings& v) {
  if (dir.empty()) return dir;
  if (!v.secondary_tier_size || *v.secondary_tier_size <= 0)
    throw UsageError(
        "--secondary-tier-dir: the directory of a secondary tier; expected --secondary-tier-size N with it");
  const bool printable = std::all_of(dir.begin(), dir.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f && c != '\'' && c != '"' && c != '\\';
  });
  if (dir.front() != '/' || !printable)
    throw UsageError(fmt::format(
        "--secondary-tier-dir '{}': expected an absolute path (e.g. /mnt/nvme/kv) without quotes, "
        "backslashes or control characters (it is written into vLLM's JSON configuration)",
        printable_path(dir)));
  return dir;
}

void check_secondary_blocks(double gib, std::int64_t block_bytes) {
  if (gib <= 0 || block_bytes <= 0 || gib * kGiB >= static_cast<double>(block_bytes)) return;
  throw UsageError(fmt::format(
      "secondary-tier-size (--secondary-tier-size) {:g} GiB holds no block of {} (one CPU block across all "
      "ranks); expected 0 (no secondary tier) or at least one block, {:g} GiB",
      gib, format_bytes_binary(static_cast<double>(block_bytes)), static_cast<double>(block_bytes) / kGiB));
}

void check_kvbm_disk(double disk_gib, double cpu_gib) {
  // Both are rounded up to decimal GB alike, so GiB against GiB decides.
  if (disk_gib <= 0 || cpu_gib <= disk_gib) return;
  throw UsageError(fmt::format(
      "--secondary-tier-size {:g} with --engine dynamo: KVBM's disk tier (DYN_KVBM_DISK_CACHE_GB) must be no "
      "smaller than its CPU tier, {:g} GiB here (DYN_KVBM_CPU_CACHE_GB); expected --secondary-tier-size {:g} "
      "or more",
      disk_gib, cpu_gib, cpu_gib));
}

SecondaryTierKind secondary_kind_for(EngineKind engine, OffloadingBackend backend) {
  if (engine == EngineKind::kSglang) return SecondaryTierKind::kSglangFile;
  if (engine == EngineKind::kDynamo) return SecondaryTierKind::kKvbmDisk;
  if (engine == EngineKind::kLmcache || backend == OffloadingBackend::kLmcache)
    return SecondaryTierKind::kLmcacheDisk;
  return backend == OffloadingBackend::kSimple ? SecondaryTierKind::kSimpleDisk
                                               : SecondaryTierKind::kTieringFs;
}

SecondaryTierPlan plan_secondary_tier(double gib, OffloadingBackend backend, int ranks, double cpu_gib,
                                      const std::string& dir, EngineKind engine) {
  SecondaryTierPlan p;
  if (!dir.empty()) p.dir = dir;
  p.kind = secondary_kind_for(engine, backend);
  p.gib = gib;
  p.ranks = std::max(1, ranks);
  p.bytes_per_rank = static_cast<std::uint64_t>(std::floor(gib * kGiB / p.ranks));
  p.cpu_bytes = static_cast<std::uint64_t>(std::floor(std::max(0.0, cpu_gib) * kGiB));
  // LMCache multiplies max_local_disk_size by 2^30 in each rank's engine; KVBM reads decimal GB for
  // the instance (the same units as their CPU keys, which size already writes).
  if (p.kind == SecondaryTierKind::kLmcacheDisk) p.engine_size = gib / p.ranks;
  if (p.kind == SecondaryTierKind::kKvbmDisk) p.engine_size = std::ceil(gib * kGiB / 1e9);
  return p;
}

}  // namespace kvb
