#pragma once
// size --secondary-tier-size: a secondary tier the operator states, as the vLLM mechanism that
// holds it. Facts only; output/size/secondary_plan_text words them and size/vllm_command writes the
// configuration.
//   * --kv-offloading-backend native: vLLM's tiering (TieringOffloadingSpec, 0.22+, PR #40020) with
//     its file-system tier (type "fs", PR #41735) behind the CPU tier. The FS tier takes no size
//     (vllm/v1/kv_offload/tiering/fs/manager.py: root_dir and thread counts only): its disk use grows
//     with the traffic's distinct prefixes (vLLM RFC #54779), the stated size is the room given.
//   * --kv-offloading-backend simple: the SimpleCPUOffloadConnector's disk backend (PR #49644,
//     kv_offload_backend "disk", disk_capacity_bytes): the disk instead of the CPU tier, not behind it.
//   * LMCache (--engine lmcache or --kv-offloading-backend lmcache): its local_disk backend,
//     LMCACHE_LOCAL_DISK / LMCACHE_MAX_LOCAL_DISK_SIZE (GiB per rank, like the CPU size).
//   * SGLang HiCache: its "file" storage backend (the L3 tier) under
//     SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR, which takes no size.
//   * Dynamo KVBM: its disk tier (G3), DYN_KVBM_DISK_CACHE_GB (GB = 10^9, the instance's) under
//     DYN_KVBM_DISK_CACHE_DIR; KVBM's docs want it no smaller than the CPU tier (write-through).
#include <cstdint>
#include <optional>
#include <string>

#include "server/serve_settings.hpp"

namespace kvb {

enum class SecondaryTierKind { kTieringFs, kSimpleDisk, kLmcacheDisk, kSglangFile, kKvbmDisk };

// Where kvbench writes the tier's directory in a command: it does not know the operator's.
inline constexpr const char* kTierDirPlaceholder = "/mnt/kv-tier";

struct SecondaryTierPlan {
  SecondaryTierKind kind = SecondaryTierKind::kTieringFs;
  double gib = 0;  // as stated, all ranks (GiB = 2^30)
  int ranks = 1;
  std::uint64_t bytes_per_rank = 0;  // the Simple disk backend's disk_capacity_bytes: gib / ranks
  // The tiering's cpu_bytes_to_use: the CPU tier in front, as --kv-offloading-size writes it
  // (GiB x 2^30, the server's; vllm/config/vllm.py). 0: no CPU tier recommended, so no tiering.
  std::uint64_t cpu_bytes = 0;
  // size --workload/--trace: the capacity is the simulated recommendation (SecondaryTierAdvice), not
  // the size stated; vLLM's tiering is written with the Simple disk backend as the alternative.
  bool simulated = false;
  std::string dir = kTierDirPlaceholder;  // --secondary-tier-dir, else the placeholder
  // The engine's own size key: LMCACHE_MAX_LOCAL_DISK_SIZE (gib / ranks) or DYN_KVBM_DISK_CACHE_GB
  // (gib in decimal GB, rounded up as DYN_KVBM_CPU_CACHE_GB is); 0 for the other kinds.
  double engine_size = 0;
};

// KVBM is write-through: its docs want DYN_KVBM_DISK_CACHE_GB >= DYN_KVBM_CPU_CACHE_GB, or the disk
// tier churns. UsageError, one line naming both, for a stated disk tier under the CPU tier written.
void check_kvbm_disk(double disk_gib, double cpu_gib);

// The kind that holds a stated tier for the engine and backend asked for.
SecondaryTierKind secondary_kind_for(EngineKind engine, OffloadingBackend backend);

// Its name in kvbench/size/v1 ("vllm-tiering-fs", "simple-disk", "lmcache-local-disk",
// "sglang-hicache-file", "dynamo-kvbm-disk"), and back (nullopt: unknown).
std::string secondary_kind_name(SecondaryTierKind k);
std::optional<SecondaryTierKind> secondary_kind_from_name(const std::string& name);

// UsageError, one line naming the flags and what is accepted, for a tier vLLM would not run or
// kvbench does not write: no CPU tier in front (vLLM's tiering cascades from it), a release before
// the mechanism (tiering 0.22, the Simple disk backend 0.27). `simulated` (size --workload/--trace):
// the CPU tier in front is the simulation's to choose, and the tier simulated is vLLM's tiering only
// (not the Simple disk backend, LMCache, SGLang or Dynamo).
void check_secondary_tier(const ServeSettings& v, EngineKind engine, bool simulated = false);

// --secondary-tier-dir, returned as given: an absolute path without the quotes, backslashes and
// control characters that would break the configuration's JSON inside the command's single quotes
// (empty: none given). UsageError, one line, otherwise or without --secondary-tier-size.
std::string check_secondary_tier_dir(const std::string& dir, const ServeSettings& v);

// A stated tier under one block (disk_capacity_bytes 107, a root_dir of 107 B) holds nothing: refused
// (UsageError naming the block) rather than written into a command.
void check_secondary_blocks(double gib, std::int64_t block_bytes);

// The stated tier over `ranks` ranks behind a CPU tier of `cpu_gib` (0: none recommended).
// `dir`: the tier's directory (empty: kTierDirPlaceholder).
SecondaryTierPlan plan_secondary_tier(double gib, OffloadingBackend backend, int ranks, double cpu_gib,
                                      const std::string& dir = "", EngineKind engine = EngineKind::kVllm);

}  // namespace kvb
