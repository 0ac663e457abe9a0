#include "size/offload_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"

namespace kvb {

std::int64_t cpu_blocks_for(double gib, std::int64_t cpu_block_bytes) {
  if (cpu_block_bytes <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(gib * kGiB / static_cast<double>(cpu_block_bytes)));
}

OffloadPlan plan_offload(const Sizing& s, const SizingInputs& in) {
  OffloadPlan p;
  const auto& l = s.layout;
  // One offloaded block (block_size_factor 1: the lcm of one GPU block size is itself) holds
  // the block of every layer on every rank; replicated layouts store one copy per rank.
  p.cpu_block_bytes = l.block_bytes_all_layers() * s.world_size;
  p.tokens_per_gib = kGiB / static_cast<double>(p.cpu_block_bytes) * l.block_size;
  const std::int64_t request_blocks = std::max<std::int64_t>(1, s.blocks_per_request);
  const double request_gib = static_cast<double>(request_blocks) * l.block_size / p.tokens_per_gib;

  if (in.concurrency) {
    p.sessions = *in.concurrency;
    p.sessions_reason = fmt::format("--concurrency {}", p.sessions);
  } else {
    // The tier is write-through, so it holds copies of what is on the GPU too; it pays when
    // it holds more than the GPU pool. Twice the GPU's full-length sessions (SGLang HiCache's
    // default host pool is 2x the device pool; Dynamo wants the CPU tier larger than the GPU).
    p.sessions = std::max(1, static_cast<int>(std::ceil(2.0 * s.max_concurrency)));
    p.sessions_reason = fmt::format("default: 2 x the {:.2f} full-length sessions the GPU pool holds (the tier is "
                                    "write-through, so it must exceed the GPU pool to add anything)",
                                    s.max_concurrency);
  }
  p.wanted_gib = request_gib * p.sessions;
  const double host_gb = in.host_memory_gb.value_or(in.hw.host_dram_gb);
  // This instance's share of the nodes it spans: 4/8 of one 8-GPU node, or 4 whole nodes for TP 4
  // on GH200 (one GPU per node), each with its own host DRAM.
  const double share = static_cast<double>(s.world_size) / in.hw.gpus_per_node;
  p.cap_gib = host_gb * 1e9 * in.host_dram_fraction * share / kGiB;
  p.capped = p.wanted_gib > p.cap_gib;
  const double chosen = p.capped ? p.cap_gib : p.wanted_gib;
  p.recommended_gib = std::max(1, static_cast<int>(p.capped ? std::floor(chosen) : std::ceil(chosen)));
  p.num_cpu_blocks = cpu_blocks_for(p.recommended_gib, p.cpu_block_bytes);
  p.cpu_tokens = p.num_cpu_blocks * l.block_size;
  p.pinned_gib_per_rank = static_cast<double>(p.recommended_gib) / s.world_size;
  p.lmcache_gib_per_rank = p.pinned_gib_per_rank;

  p.reasoning.push_back(fmt::format("one {}-token CPU block = {} across {} rank{}{}; {} tokens per GiB", l.block_size,
                                    format_bytes_binary(static_cast<double>(p.cpu_block_bytes)), s.world_size,
                                    s.world_size == 1 ? "" : "s", l.replicated ? " (replicated copies included)" : "",
                                    format_count(static_cast<std::int64_t>(p.tokens_per_gib))));
  p.reasoning.push_back(fmt::format("one {}-token session = {:.2f} GiB in the CPU tier; sessions to keep warm: {} ({})",
                                    format_count(s.max_model_len), request_gib, p.sessions, p.sessions_reason));
  p.reasoning.push_back(fmt::format("cap: {:.0f}% of {:.0f} GB host DRAM{} = {:.0f} GiB", in.host_dram_fraction * 100,
                                    host_gb,
                                    share < 1.0   ? fmt::format(" x this instance's {}/{} GPUs", s.world_size,
                                                                in.hw.gpus_per_node)
                                    : share > 1.0 ? fmt::format(" per node x {:g} nodes ({} GPUs of {} per node)", share,
                                                                s.world_size, in.hw.gpus_per_node)
                                                  : "",
                                    p.cap_gib));
  if (p.capped) {
    const auto fit_sessions = static_cast<int>(std::floor(p.recommended_gib / request_gib));
    p.reasoning.push_back(fmt::format("wanted {:.0f} GiB exceeds the cap: recommend {} GiB, which keeps {} sessions warm",
                                      p.wanted_gib, p.recommended_gib, fit_sessions));
  } else {
    p.reasoning.push_back(fmt::format("{} x {:.2f} GiB = {:.1f} GiB, rounded up: --kv-offloading-size {} ({:.1f} GiB "
                                      "pinned per rank)",
                                      p.sessions, request_gib, p.wanted_gib, p.recommended_gib,
                                      p.pinned_gib_per_rank));
  }
  if (in.kv_offloading_size_gib) {
    p.given_gib = *in.kv_offloading_size_gib;
    p.given_num_cpu_blocks = cpu_blocks_for(*p.given_gib, p.cpu_block_bytes);
    p.given_cpu_tokens = p.given_num_cpu_blocks * l.block_size;
  }
  return p;
}

}  // namespace kvb
