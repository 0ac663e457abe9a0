#include "catalog/vllm_releases.hpp"

namespace kvb {
namespace {

using C = ReleaseChange;

// Where a release is soft, it is the first release cut after the pull request's merge, from dates:
// - kSharedRegion: PR #50094 merged in July 2026; issue #53042 measured the tensor path on 0.26.0.
// - kSimpleDiskBackend: PR #49644 was still in review on 2026-07-30 and vLLM main was
//   0.26.1rc1.dev255 on 2026-08-04 (issue #51080's environment): 0.27 is the first release after it.
// - kDraftOffload: issue #52735's fix, PR #52771, was not on main on 2026-08-23 (its review: the
//   defect still there; the symptom reported on the 0.27.1 release); issue 55 of kvbench names 0.30.
// - kChunkedRegistration: PR #51081 (fixes issue #51080) was still in review on 2026-09-14 and 0.30.0
//   was the newest release on 2026-09-23 (AMD-AGI/TraceLens issue #1055): kvbench takes 0.31, the
//   first release certainly cut after it, so a 0.30 server is warned rather than trusted.
constexpr std::array<ReleaseFact, kReleaseChangeCount> kFacts{{
    {C::kSimpleConnector,
     {0, 19, 0},
     false,
     "SimpleCPUOffloadConnector: vLLM's block pool reused for the CPU tier, sized per rank",
     "vLLM PR #37160 (VLLM_USE_SIMPLE_KV_OFFLOAD=1); "
     "vllm/distributed/kv_transfer/kv_connector/v1/simple_cpu_offload_connector.py"},
    {C::kHybridOffload,
     {0, 21, 0},
     false,
     "the OffloadingConnector supports the hybrid KV cache manager (SupportsHMA): sliding-window and "
     "Mamba groups offload per group",
     "vLLM PRs #41847, #39403, #44599; ovg-project/kvcached PR #351 (0.21.0 has SupportsHMA)"},
    {C::kTiering,
     {0, 22, 0},
     false,
     "TieringOffloadingSpec: a secondary tier (file system, Mooncake) behind the CPU tier, "
     "written through from it",
     "vLLM PRs #40020 (tiering), #41735 (file-system tier), #42689 (Mooncake's disk)"},
    {C::kSharedRegion,
     {0, 27, 0},
     true,
     "the native tier is one mmap'ed /dev/shm region pinned with cudaHostRegister: the flag exactly, "
     "no power-of-two rounding",
     "vLLM PR #50094; issue #53042 (0.26.0 still pinned tensors)"},
    {C::kSimpleDiskBackend,
     {0, 27, 0},
     true,
     "the Simple connector's disk backend: O_DIRECT pwritev/preadv to a preallocated per-rank file "
     "(disk_capacity_bytes), pinned DRAM only as a double buffer",
     "vLLM PR #49644 (kv_offload_backend \"disk\", disk_path, disk_capacity_bytes, disk_buffer_slots)"},
    {C::kDraftOffload,
     {0, 30, 0},
     true,
     "with MTP/EAGLE sharing the target's KV cache group, the OffloadingConnector no longer marks every "
     "group a drafter's, which zeroed a Mamba hybrid's offload hits",
     "vLLM issue #52735, PR #52771"},
    {C::kChunkedRegistration,
     {0, 31, 0},
     true,
     "the /dev/shm region is registered in chunks of at most 64 GiB: a tier of 512 GiB or more can be "
     "pinned",
     "vLLM issue #51080 (one cudaHostRegister of 512 GiB or more fails), PR #51081"},
}};

}  // namespace

const std::array<ReleaseFact, kReleaseChangeCount>& release_facts() { return kFacts; }

const ReleaseFact& release_fact(ReleaseChange c) {
  for (const auto& f : kFacts) {
    if (f.change == c) return f;
  }
  return kFacts[0];  // every change has its row (a unit test checks each)
}

bool has_change(const VllmVersion& v, ReleaseChange c) { return !(v < release_fact(c).from); }

bool region_pin_fails(double flag_bytes, const VllmVersion& v) {
  return has_change(v, C::kSharedRegion) && !has_change(v, C::kChunkedRegistration) &&
         flag_bytes >= kSingleRegistrationLimitBytes;
}

}  // namespace kvb
