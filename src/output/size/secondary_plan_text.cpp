#include "output/size/secondary_plan_text.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/units.hpp"

namespace kvb {
namespace {

// The directory in the commands: the operator's (--secondary-tier-dir), or the placeholder, said so.
std::string dir_words(const SecondaryTierPlan& p) {
  return p.dir == kTierDirPlaceholder ? fmt::format("{} stands in for your directory", p.dir)
                                      : fmt::format("{}, as given", p.dir);
}

std::vector<std::string> tiering_lines(const SecondaryTierPlan& p) {
  if (p.cpu_bytes == 0)
    return {fmt::format(
        "no tiering written: the {:g} GiB secondary tier needs a CPU tier in front of it and none is "
        "recommended here (vLLM's tiering cascades from the CPU tier)",
        p.gib)};
  return {
      fmt::format(
          "secondary tier: vLLM's file-system tier under root_dir ({}), "
          "behind the CPU tier of cpu_bytes_to_use {} ({:g} GiB): written through from the CPU tier, "
          "promoted back through it on a hit (TieringOffloadingSpec, vLLM PR #40020; file-system tier "
          "PR #41735; vllm/v1/kv_offload/tiering/spec.py)",
          dir_words(p), p.cpu_bytes, static_cast<double>(p.cpu_bytes) / kGiB),
      fmt::format(
          "vLLM's file-system tier takes no size (vllm/v1/kv_offload/tiering/fs/manager.py: root_dir and "
          "thread counts only) and has no bound of its own before vLLM RFC #54779: its disk use grows "
          "with the traffic's distinct prefixes; the {:g} GiB {} is the room to give root_dir (a "
          "volume or quota of that size), not a figure vLLM reads",
          p.gib, p.simulated ? "recommended" : "stated"),
      p.simulated
          ? "simulated by size for this traffic: the secondary tier's verdict is under the CPU tier above"
          : "not simulated by size: whether it pays for a traffic is kvbench simulate --secondary-tier-size "
            "with the disk's rates, or size --workload/--trace with it (docs/size.md)"};
}

std::vector<std::string> simple_disk_lines(const SecondaryTierPlan& p) {
  return {
      fmt::format("the Simple connector's disk backend (vLLM PR #49644; 0.27, soft): the disk instead of the "
                  "CPU tier, not behind it: GPU blocks go through a small pinned double buffer to one "
                  "preallocated file per rank (disk_path.rank_N, O_DIRECT); {}",
                  dir_words(p)),
      fmt::format(
          "disk_capacity_bytes {} is each rank's share of the {:g} GiB over {} rank(s); kvbench could "
          "not confirm from vLLM's source whether the key is per rank or the server's (the PR's "
          "description: one file per rank); with one rank they agree",
          p.bytes_per_rank, p.gib, p.ranks),
      "not simulated: kvbench simulates the native tiering's secondary tier only"};
}

std::vector<std::string> lmcache_disk_lines(const SecondaryTierPlan& p) {
  return {fmt::format(
              "secondary tier: LMCache's local_disk backend behind its CPU backend, "
              "LMCACHE_LOCAL_DISK=\"file://{}/\" and LMCACHE_MAX_LOCAL_DISK_SIZE={:.1f} (GiB per rank: the "
              "{:g} GiB over {} rank(s), as LMCACHE_MAX_LOCAL_CPU_SIZE); one file per KV chunk, LRU-evicted "
              "at that bound (LMCache docs, kv_cache/storage_backends/local_storage; lmcache/v1/config.py "
              "local_disk, max_local_disk_size); {}",
              p.dir, p.engine_size, p.gib, p.ranks, dir_words(p)),
          "written in the connector form's environment (LMCACHE_* variables); not simulated by size"};
}

std::vector<std::string> sglang_file_lines(const SecondaryTierPlan& p) {
  return {
      fmt::format("secondary tier: HiCache's L3 storage, --hicache-storage-backend file under "
                  "SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR={} (sgl-project/sglang "
                  "python/sglang/srt/mem_cache/hicache_storage.py, HiCacheFile; default /tmp/hicache); {}",
                  p.dir, dir_words(p)),
      fmt::format("the file backend takes no size and kvbench found no capacity bound or eviction in "
                  "HiCacheFile: its disk use grows with the traffic's distinct prefixes; the {:g} GiB stated "
                  "is the room to give the directory (a volume or quota of that size), not a figure SGLang "
                  "reads; not simulated by size",
                  p.gib)};
}

std::vector<std::string> kvbm_disk_lines(const SecondaryTierPlan& p) {
  return {
      fmt::format("secondary tier: KVBM's disk tier (G3) behind its CPU tier, DYN_KVBM_DISK_CACHE_GB={:.0f} "
                  "(decimal GB for the instance: the {:g} GiB rounded up, as DYN_KVBM_CPU_CACHE_GB) under "
                  "DYN_KVBM_DISK_CACHE_DIR={} (ai-dynamo/dynamo lib/runtime/src/config/environment_names.rs; "
                  "docs.nvidia.com/dynamo, KVBM Configuration Reference); {}",
                  p.engine_size, p.gib, p.dir, dir_words(p)),
      "KVBM is write-through, so its docs want DYN_KVBM_DISK_CACHE_GB >= DYN_KVBM_CPU_CACHE_GB (>= the GPU "
      "KV cache): size refuses a smaller disk tier; not simulated by size"};
}

}  // namespace

std::vector<std::string> simple_alternative_lines(const SecondaryTierPlan& p) {
  return {fmt::format(
              "the same {:g} GiB as the Simple connector's disk backend (vLLM PR #49644; 0.27, soft): the "
              "disk instead of the CPU tier, not behind it, so not what was simulated; {}",
              p.gib, dir_words(p)),
          fmt::format(
              "disk_capacity_bytes {} is each rank's share over {} rank(s) (per rank or the server's: not "
              "confirmed from vLLM's source; with one rank they agree)",
              static_cast<std::uint64_t>(p.gib * kGiB / p.ranks), p.ranks)};
}

std::vector<std::string> secondary_plan_lines(const SecondaryTierPlan& p) {
  switch (p.kind) {
    case SecondaryTierKind::kSimpleDisk:
      return simple_disk_lines(p);
    case SecondaryTierKind::kLmcacheDisk:
      return lmcache_disk_lines(p);
    case SecondaryTierKind::kSglangFile:
      return sglang_file_lines(p);
    case SecondaryTierKind::kKvbmDisk:
      return kvbm_disk_lines(p);
    case SecondaryTierKind::kTieringFs:
      break;
  }
  return tiering_lines(p);
}

}  // namespace kvb
