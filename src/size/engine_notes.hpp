#pragma once
// What sizing says about the command of another engine (SGLang's HiCache, Dynamo's KVBM, LMCache):
// its units, rounding and limits, as facts with their figures; output/size/engine_notes_text words them,
// each with its source, for the text and a size document read back (its "engine_notes" hold the
// facts: size/engine_notes_json).
#include <cstdint>
#include <string>
#include <variant>

namespace kvb {

// SGLang asserts its host pool exceeds the device pool: the size was raised above it.
struct SglangHostRaised {
  double host_gb = 0, device_gb = 0;  // per rank, GB = 10^9
};
// --hicache-size is GB per rank: the tier split across the ranks and rounded up.
struct SglangHicacheSize {
  double gib = 0;
  int ranks = 1;
  double per_rank_gb = 0;
};
struct SglangHicacheRatio {
  double ratio = 0, device_gb = 0;
};
struct SglangLayouts {};
// DYN_KVBM_CPU_CACHE_GB is GB for the instance; KVBM's leader makes blocks of it.
struct KvbmCacheSize {
  int ranks = 1;
  double gib = 0, cache_gb = 0;
  std::int64_t host_blocks = 0;
  int block_tokens = 0;
  double block_bytes = 0;
};
// KVBM is write-through: a CPU cache at or below the GPU's KV pool churns.
struct KvbmAgainstGpuPool {
  double gpu_pool_gib = 0;
  bool above = false;
  bool simulated = false;  // the size comes from simulated traffic (else the sessions kept warm)
};
struct KvbmInitTimeout {
  double pin_s = 0;
  int timeout_s = 0;
};
struct KvbmStandalone {};
struct LmcacheSizePerRank {
  double gib = 0;
  int ranks = 1;
};
struct LmcacheEnvironment {};
// An engine note read from a size document written before engine notes were facts (a worded
// string): kept as worded, written back as {"kind": "worded", "text": ...}. Sizing never makes one.
struct WordedEngineNote {
  std::string text;
};

using EngineNote = std::variant<SglangHostRaised, SglangHicacheSize, SglangHicacheRatio, SglangLayouts,
                                KvbmCacheSize, KvbmAgainstGpuPool, KvbmInitTimeout, KvbmStandalone,
                                LmcacheSizePerRank, LmcacheEnvironment, WordedEngineNote>;

}  // namespace kvb
