#include "output/common/host_memory_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace kvb {

std::vector<std::string> host_memory_lines(const HostFootprint& f) {
  const auto facts = backing_facts(f.backing);
  std::vector<std::string> out;
  std::string split;
  if (f.backing == TierBacking::kPinnedTensors && f.per_rank_host_bytes > f.per_rank_bytes) {
    const auto tensors =
        f.tensors_per_rank > 1 ? fmt::format(" ({} tensors)", f.tensors_per_rank) : std::string();
    split = f.ranks == 1 ? fmt::format(": its {:.1f} GiB{} rounds up to {:.1f} GiB", f.per_rank_bytes / kGiB,
                                       tensors, f.per_rank_host_bytes / kGiB)
                         : fmt::format(": each of {} ranks rounds its {:.1f} GiB{} up to {:.1f} GiB", f.ranks,
                                       f.per_rank_bytes / kGiB, tensors, f.per_rank_host_bytes / kGiB);
  }
  out.push_back(fmt::format(
      "host memory on vLLM {}{}: {:.1f} GiB for the {:.1f} GiB tier ({:.2f}x the flag{}){}, plus "
      "about {:.0f} GiB for the server's {} process{} (estimate)",
      to_string(f.version), f.newer_than_modelled ? " (as the newest release kvbench models)" : "",
      f.tier_host_bytes / kGiB, f.flag_bytes / kGiB, f.ratio(), split,
      f.dev_shm_bytes > 0 ? fmt::format(", all of it in /dev/shm") : std::string(), f.process_bytes / kGiB,
      f.ranks, f.ranks == 1 ? "" : "es"));
  out.push_back(fmt::format("why: {}", facts.why));
  out.push_back(fmt::format("source: {}", facts.source));
  return out;
}

}  // namespace kvb
