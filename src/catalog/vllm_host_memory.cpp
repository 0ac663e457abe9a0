#include "catalog/vllm_host_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <tuple>

#include "catalog/vllm_releases.hpp"
#include "core/errors.hpp"
#include "core/json_file.hpp"
#include "core/units.hpp"

namespace kvb {
namespace {

constexpr VllmVersion kFirstNativeTier{0, 11, 0};  // the OffloadingConnector's CPU tier

bool read_part(const std::string& text, std::size_t& at, int& out) {
  const auto start = at;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && at - start < 4) ++at;
  if (at == start) return false;
  out = std::stoi(text.substr(start, at - start));
  return true;
}

}  // namespace

bool operator<(const VllmVersion& a, const VllmVersion& b) {
  return std::tie(a.major, a.minor, a.patch) < std::tie(b.major, b.minor, b.patch);
}

std::string to_string(const VllmVersion& v) { return fmt::format("{}.{}.{}", v.major, v.minor, v.patch); }

VllmVersion vllm_version_field(const JsonFields& r, const nlohmann::json& j, const char* key) {
  return parse_vllm_version(r.text(j, key), fmt::format("{}: field '{}'", r.where(), key));
}

VllmVersion parse_vllm_version(const std::string& text, const std::string& flag) {
  const auto refuse = [&](const std::string& why) {
    return UsageError(
        fmt::format("{} '{}': {}; expected a vLLM release such as 0.26 or 0.33.1 (0.11 or newer: the "
                    "native CPU tier; one newer than {}.{} is read as {}.{})",
                    flag, text, why, kNewestModelledVllm.major, kNewestModelledVllm.minor,
                    kNewestModelledVllm.major, kNewestModelledVllm.minor));
  };
  std::size_t at = (!text.empty() && (text[0] == 'v' || text[0] == 'V')) ? 1 : 0;
  VllmVersion v;
  if (!read_part(text, at, v.major) || at >= text.size() || text[at] != '.') throw refuse("not a version");
  ++at;
  if (!read_part(text, at, v.minor)) throw refuse("not a version");
  if (at < text.size() && text[at] == '.' && at + 1 < text.size() &&
      std::isdigit(static_cast<unsigned char>(text[at + 1]))) {
    ++at;
    (void)read_part(text, at, v.patch);
  }
  // A pre-release or post-release suffix names the same allocation code as its release: more release
  // segments, rcN, postN, .devN and a +local label (PEP 440's forms vLLM's wheels carry), nothing else.
  static const std::regex kSuffix(
      R"((\.[0-9]+)*(rc[0-9]*)?(\.?post[0-9]*)?(\.dev[0-9]*)?(\+[A-Za-z0-9.]+)?)");
  if (!std::regex_match(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(), kSuffix)) {
    throw refuse("not a version");
  }
  if (v < kFirstNativeTier) throw refuse("older than the native CPU tier");
  return v;
}

std::string to_string(TierBacking b) {
  switch (b) {
    case TierBacking::kPinnedTensors:
      return "pinned-tensors";
    case TierBacking::kSharedMemoryRegion:
      return "dev-shm-region";
    case TierBacking::kRegisteredTensors:
      return "registered-tensors";
  }
  return "dev-shm-region";
}

TierBackingFacts tier_backing(const VllmVersion& v) {
  // PR #50094 moved CPUOffloadingSpec onto one /dev/shm region (catalog/vllm_releases: 0.27, soft).
  return backing_facts(has_change(v, ReleaseChange::kSharedRegion) ? TierBacking::kSharedMemoryRegion
                                                                   : TierBacking::kPinnedTensors);
}

TierBackingFacts backing_facts(TierBacking b) {
  if (b == TierBacking::kRegisteredTensors) {
    return {TierBacking::kRegisteredTensors,
            "each rank allocates its share with torch.zeros and pins it with cudaHostRegister, bypassing "
            "PyTorch's power-of-two rounding: the tier takes its whole blocks within the flag, in the "
            "worker's own memory, not /dev/shm",
            "vllm/v1/simple_kv_offload/worker.py (register_kv_caches), vLLM PR #37160"};
  }
  if (b == TierBacking::kPinnedTensors) {
    return {
        TierBacking::kPinnedTensors,
        "each rank allocates its share as pinned PyTorch tensors (torch.zeros(pin_memory=True)); PyTorch's "
        "CUDACachingHostAllocator rounds every such allocation up to the next power of two",
        "vLLM PR #48436 (40 GiB per rank took 64 GiB), PR #50094's measurements (6 -> 8, 10 -> 16 GiB), "
        "issue "
        "#53042 (vLLM 0.26.0: 24 tensors of 2.08 GiB per rank, each 4 GiB: 1.92x)"};
  }
  return {
      TierBacking::kSharedMemoryRegion,
      "one mmap'ed file in /dev/shm per engine, pinned with cudaHostRegister: the tier takes the flag "
      "exactly, "
      "but /dev/shm must hold it and, as shared memory, a cgroup cannot reclaim it (it is killed instead)",
      "vLLM PR #50094 (SharedOffloadRegion), PR #50358 (\"Insufficient space in /dev/shm\" at start-up; "
      "1.4-2.1 GiB /dev/shm on CI hosts, PR #52496), issue #53042 (shmem is unreclaimable under a cgroup)"};
}

double pinned_allocator_bytes(double bytes) {
  if (bytes <= 1) return bytes;
  return std::exp2(std::ceil(std::log2(bytes)));
}

HostFootprint tier_host_footprint(double flag_bytes, int ranks, int tensors_per_rank,
                                  const VllmVersion& version, TierConnector connector) {
  HostFootprint f;
  f.version = version;
  f.newer_than_modelled = kNewestModelledVllm < version && (version.major != kNewestModelledVllm.major ||
                                                            version.minor != kNewestModelledVllm.minor);
  f.backing =
      connector == TierConnector::kSimple ? TierBacking::kRegisteredTensors : tier_backing(version).backing;
  f.flag_bytes = flag_bytes;
  f.ranks = std::max(1, ranks);
  f.tensors_per_rank = std::max(1, tensors_per_rank);
  f.per_rank_bytes = flag_bytes / f.ranks;
  if (f.backing == TierBacking::kPinnedTensors) {
    f.per_rank_host_bytes =
        f.tensors_per_rank * pinned_allocator_bytes(f.per_rank_bytes / f.tensors_per_rank);
  } else {
    f.per_rank_host_bytes = f.per_rank_bytes;
  }
  f.tier_host_bytes = f.per_rank_host_bytes * f.ranks;
  f.dev_shm_bytes = f.backing == TierBacking::kSharedMemoryRegion ? f.tier_host_bytes : 0;
  f.process_bytes = kServerProcessGibPerRank * f.ranks * kGiB;
  return f;
}

nlohmann::json host_memory_json(const HostFootprint& f) {
  constexpr double gib = kGiB;
  const auto facts = backing_facts(f.backing);
  return {{"vllm_version", to_string(f.version)},
          {"newer_than_modelled", f.newer_than_modelled},
          {"backing", to_string(f.backing)},
          {"flag_gib", f.flag_bytes / gib},
          {"ranks", f.ranks},
          {"tensors_per_rank", f.tensors_per_rank},
          {"per_rank_gib", f.per_rank_bytes / gib},
          {"per_rank_host_gib", f.per_rank_host_bytes / gib},
          {"tier_host_gib", f.tier_host_bytes / gib},
          {"ratio", f.ratio()},
          {"dev_shm_gib", f.dev_shm_bytes / gib},
          {"server_process_gib", f.process_bytes / gib},
          {"total_gib", f.total_bytes() / gib},
          {"why", facts.why},
          {"source", facts.source}};
}

HostFootprint host_footprint_from_json(const nlohmann::json& j) {
  // GiB are bytes / 2^30: multiplying back is exact in binary floating point.
  const std::string what = "host_memory";
  // Only the Simple connector's backing is not the release's (an older document has no backing).
  const auto connector = j.value("backing", std::string()) == to_string(TierBacking::kRegisteredTensors)
                             ? TierConnector::kSimple
                             : TierConnector::kOffloading;
  return tier_host_footprint(
      json_number_in(j, "flag_gib", 0, 1e9, what) * kGiB,
      static_cast<int>(json_integer_in(j, "ranks", 1, 1 << 20, what)),
      static_cast<int>(json_integer_in(j, "tensors_per_rank", 1, 1 << 20, what)),
      parse_vllm_version(j.at("vllm_version").get<std::string>(), "host_memory.vllm_version"), connector);
}

}  // namespace kvb
