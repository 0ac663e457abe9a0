#pragma once
// The host memory vLLM's native CPU tier really takes, per vLLM version. The flag is not the
// footprint: how the tier is allocated changed between releases (the sources are in the .cpp,
// beside each fact; docs/host-memory.md words them for operators).
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_file.hpp"

namespace kvb {

struct VllmVersion {
  int major = 0, minor = 0, patch = 0;
};

// The newest release kvbench models (--vllm-version's default): each change up to it is a row of
// catalog/vllm_releases. A newer release is taken as this one and flagged (newer_than_modelled).
inline constexpr VllmVersion kNewestModelledVllm{0, 33, 0};

// "0.26", "0.26.0", "v0.27.1" (a suffix such as ".post1" or "rc2" is ignored). UsageError naming
// `flag` for anything else or a release before the native CPU tier (0.11).
VllmVersion parse_vllm_version(const std::string& text, const std::string& flag);
std::string to_string(const VllmVersion& v);
// A result document's version field ("0.19.1"), read as parse_vllm_version reads a flag; the error
// names r.where() and the key.
VllmVersion vllm_version_field(const JsonFields& r, const nlohmann::json& j, const char* key);
bool operator<(const VllmVersion& a, const VllmVersion& b);

enum class TierBacking {
  kPinnedTensors,       // torch.zeros(pin_memory=True) per KV tensor: PyTorch rounds each to a power of two
  kSharedMemoryRegion,  // one mmap'ed /dev/shm file per engine, pinned with cudaHostRegister: the flag,
                        // exactly
  kRegisteredTensors,   // the Simple connector: torch.zeros per rank, then cudaHostRegister: its share,
                        // exactly, in the worker's own memory
};
std::string to_string(TierBacking b);  // "pinned-tensors", "dev-shm-region", "registered-tensors"

// Which connector holds the tier: vLLM's OffloadingConnector (--kv-offloading-backend native) or
// the SimpleCPUOffloadConnector (--kv-offloading-backend simple in kvbench).
enum class TierConnector { kOffloading, kSimple };

struct TierBackingFacts {
  TierBacking backing = TierBacking::kSharedMemoryRegion;
  const char* why = "";     // what the release does with the flag
  const char* source = "";  // the vLLM pull requests and issues that show it
};
TierBackingFacts tier_backing(const VllmVersion& v);  // the OffloadingConnector's, per release
TierBackingFacts backing_facts(TierBacking b);        // why and source, per backing

struct HostFootprint {
  VllmVersion version;
  bool newer_than_modelled = false;  // the newest modelled release's behaviour is assumed
  TierBacking backing = TierBacking::kSharedMemoryRegion;
  double flag_bytes = 0;           // --kv-offloading-size, all ranks
  int ranks = 1;                   // the flag is split evenly across TP x PP ranks
  int tensors_per_rank = 1;        // CPU tensors per rank (pinned-tensor path)
  double per_rank_bytes = 0;       // the flag's share of one rank
  double per_rank_host_bytes = 0;  // what that share really takes
  double tier_host_bytes = 0;      // all ranks: the tier's real footprint
  double dev_shm_bytes = 0;        // the part that must fit in /dev/shm (0 on the pinned-tensor path)
  double process_bytes = 0;        // the server's own processes beside the tier (an estimate)
  double total_bytes() const { return tier_host_bytes + process_bytes; }
  double ratio() const { return flag_bytes > 0 ? tier_host_bytes / flag_bytes : 0; }
};

// Per-rank host memory of the server process outside the tier (Python, PyTorch, the CUDA context):
// about 3 GB per worker in vLLM PR #48436's RSS measurements (32 GB tier + 3, 40 + 3).
inline constexpr double kServerProcessGibPerRank = 3.0;

// `tensors_per_rank`: 1 for a model whose KV cache is one cross-layer tensor (every layer of one
// attention kind); the KV cache group size for a hybrid model (vLLM issue #53042: 24 tensors).
// The Simple connector allocates its share per rank whatever the release (`tensors_per_rank` aside).
HostFootprint tier_host_footprint(double flag_bytes, int ranks, int tensors_per_rank,
                                  const VllmVersion& version,
                                  TierConnector connector = TierConnector::kOffloading);

// The `host_memory` object of size and doctor JSON: the figures in GiB, the backing, why and the source.
nlohmann::json host_memory_json(const HostFootprint& f);
// Its reader: the release, the flag, the ranks, the tensors per rank and the backing (the Simple
// connector's, or the release's), from which every other figure follows (tier_host_footprint). Throws
// nlohmann::json::exception for a malformed object, UsageError for a release kvbench does not read.
HostFootprint host_footprint_from_json(const nlohmann::json& j);

// PyTorch's CUDACachingHostAllocator rounding: the next power of two at or above `bytes`.
double pinned_allocator_bytes(double bytes);

}  // namespace kvb
