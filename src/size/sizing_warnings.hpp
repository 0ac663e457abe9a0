#pragma once
// What a sizing warns about, as facts with their numbers (the engine decides them); the one
// wording of each is output/size/sizing_warnings_text (what the text and the JSON both print). A
// warning composed by another layer (a link profile's) arrives as text.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "catalog/offload_support.hpp"
#include "perf/link_curve.hpp"
#include "size/kv_layout.hpp"
#include "size/tier_advice_facts.hpp"

namespace kvb {

struct ContextBeyondTrained {  // vLLM refuses to start without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
  std::int64_t max_model_len = 0;
  std::string model;
  std::int64_t max_position_embeddings = 0;
  std::string extension{};  // the model card's way past it (ModelSpec::context_extension), if any
};
struct ReplicatedKv {
  KvReplication replication;
  int copies = 1;
};
// The release's native CPU tier cannot serve this model on this platform (catalog/offload_support):
// vLLM refuses to start, or fails on the first transfer, with --kv-offloading-size.
struct TierRefused {
  OffloadLayoutKind kind = OffloadLayoutKind::kFullAttention;
  VllmVersion version;
  GpuVendor vendor = GpuVendor::kNvidia;
  std::string failure, source;
};
// The hybrid manager off on a sliding-window model: --disable-hybrid-kv-cache-manager, or a release
// whose OffloadingConnector has no hybrid support (vLLM turns the manager off for it).
struct SlidingAsFull {
  int sliding_layers = 0;
  std::int64_t bytes_per_token_hybrid = 0, bytes_per_token_full = 0;
  std::optional<VllmVersion> by_connector{};  // the release whose connector turned it off
};
// The release pins the native tier's /dev/shm region in one cudaHostRegister call, which fails for
// 512 GiB or more (catalog/vllm_releases: region_pin_fails): the workers do not start.
struct TierRegionPinFails {
  double tier_gib = 0;
  VllmVersion version;
  bool given = false;  // --kv-offloading-size's (else the recommendation's)
};
// A Mamba hybrid with an MTP/EAGLE drafter on a release whose OffloadingConnector marks every KV
// cache group a drafter's: the tier stores but serves no hits (catalog/vllm_releases: kDraftOffload).
struct DraftZeroesTierHits {
  int draft_layers = 0;
  VllmVersion version;
};
struct LmcachePerRank {
  double per_rank_gib = 0, total_gib = 0;
  int ranks = 1;
};
struct TierBeyondHostDram {
  double given_gib = 0, host_gib = 0;
};
struct TierBeyondCap {
  double given_gib = 0, cap_gib = 0, dram_fraction = 0;
};
struct KvCacheMemoryTooLarge {
  double kv_bytes = 0, other_gib = 0, total_gib = 0, exceeds_gib = 0;
};
struct RanksBeyondNode {
  int ranks = 1, gpus_per_node = 1;
  std::string hardware;
};
// size --workload: the workload file's server keys describe another machine; size uses the flags'.
struct WorkloadServerKeysIgnored {
  std::string workload;
  std::vector<std::string> keys;
  std::string simulate_as;  // what `kvbench simulate` takes to run the file as written
};
// size --workload could not simulate it (size/tier_advice_facts.hpp: NotSimulatedWorkload).
struct WorkloadNotSimulated {
  NotSimulatedWorkload workload;
};
// --link-profile is a result of kvbench's host backend: host-memory copies, not a GPU link.
struct HostBackendLink {
  LinkProfile link;
};

// A warning read from a size document written before warnings were facts (a worded string): kept
// as worded, and written back as {"kind": "worded", "text": ...}. The engine never makes one.
struct WordedWarning {
  std::string text;
};

using SizingWarning = std::variant<ContextBeyondTrained, ReplicatedKv, TierRefused, SlidingAsFull,
                                   LmcachePerRank, TierBeyondHostDram, TierBeyondCap, KvCacheMemoryTooLarge,
                                   RanksBeyondNode, WorkloadServerKeysIgnored, WorkloadNotSimulated,
                                   HostBackendLink, TierRegionPinFails, DraftZeroesTierHits, WordedWarning>;

// The command this sizing prints would not start (said on stderr even when the result goes to a file).
bool refuses_start(const SizingWarning& w);

}  // namespace kvb
