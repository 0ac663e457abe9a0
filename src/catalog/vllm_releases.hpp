#pragma once
// What each vLLM release changes for sizing a CPU tier: one row per change, the first release that
// has it and its source (the .cpp words each row's evidence; docs/host-memory.md has the table).
// kvbench models releases up to kNewestModelledVllm; a newer one is taken as that release and
// flagged (newer_than_modelled), not refused: the tier's code changes by pull request, and the last
// release read is the best statement of a newer one until it is read.
#include <array>

#include "catalog/vllm_host_memory.hpp"

namespace kvb {

enum class ReleaseChange {
  kSimpleConnector,      // SimpleCPUOffloadConnector (VLLM_USE_SIMPLE_KV_OFFLOAD=1, or its connector name)
  kHybridOffload,        // the OffloadingConnector declares SupportsHMA: hybrid models keep their manager
  kTiering,              // TieringOffloadingSpec: a secondary tier behind the CPU tier
  kSharedRegion,         // the native tier is one mmap'ed /dev/shm region pinned with cudaHostRegister
  kSimpleDiskBackend,    // the Simple connector's disk backend (kv_offload_backend "disk")
  kDraftOffload,         // MTP/EAGLE drafters no longer zero a hybrid model's offload hits
  kChunkedRegistration,  // the /dev/shm region is pinned in chunks: regions of 512 GiB and more start
};
inline constexpr int kReleaseChangeCount = 7;

struct ReleaseFact {
  ReleaseChange change = ReleaseChange::kSimpleConnector;
  VllmVersion from;         // the first release that has it
  bool soft = false;        // the release is inferred from merge and release dates, not read in a tag
  const char* what = "";    // the change, in a few words
  const char* source = "";  // the pull requests and issues that show it
};

const std::array<ReleaseFact, kReleaseChangeCount>& release_facts();
const ReleaseFact& release_fact(ReleaseChange c);
// Whether release `v` has the change (a release newer than kvbench models has every change it knows).
bool has_change(const VllmVersion& v, ReleaseChange c);

// One cudaHostRegister call of this many bytes or more fails with cudaErrorMemoryAllocation
// whatever the host has free (vLLM issue #51080: 511.96 GiB pinned, 512.15 GiB refused).
inline constexpr double kSingleRegistrationLimitBytes = 512.0 * 1024 * 1024 * 1024;

// The native tier's region cannot be pinned on this release: a /dev/shm region registered in one
// call (kSharedRegion without kChunkedRegistration) of kSingleRegistrationLimitBytes or more. The
// region holds the whole tier, every rank's share (PR #51081: each rank registers all of it).
bool region_pin_fails(double flag_bytes, const VllmVersion& v);

}  // namespace kvb
