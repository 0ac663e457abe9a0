#include "output/size/offload_rule_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/units.hpp"
#include "output/size/tier_advice_text.hpp"

namespace kvb {

std::string cpu_block_text(const OffloadPlan& p) {
  const auto& r = *p.rule;
  return fmt::format("one {}-token CPU block = {} across {} rank{}{}; {} tokens per GiB", r.block_size,
                     format_bytes_binary(static_cast<double>(p.cpu_block_bytes)), r.world_size,
                     r.world_size == 1 ? "" : "s", r.replicated ? " (replicated copies included)" : "",
                     format_count(static_cast<std::int64_t>(p.tokens_per_gib)));
}

namespace {

// "cap: 60% of 2048 GB host DRAM x this instance's 4/8 GPUs = 686 GiB".
std::string cap_line(const OffloadPlan& p) {
  const auto& r = *p.rule;
  const double share = static_cast<double>(r.world_size) / r.gpus_per_node;
  return fmt::format("cap: {:.0f}% of {:.0f} GB host DRAM{} = {:.0f} GiB", r.host_dram_fraction * 100,
                     r.host_gb,
                     share < 1.0 ? fmt::format(" x this instance's {}/{} GPUs", r.world_size, r.gpus_per_node)
                     : share > 1.0 ? fmt::format(" per node x {:g} nodes ({} GPUs of {} per node)", share,
                                                 r.world_size, r.gpus_per_node)
                                   : "",
                     p.cap_gib);
}

// The size the sessions ask for, or what the cap leaves; then the floor, where it raised it.
void size_lines(std::vector<std::string>& out, const OffloadPlan& p) {
  const auto& r = *p.rule;
  if (p.capped) {
    const auto fit_sessions = static_cast<int>(std::floor(r.gib / r.session_gib));
    out.push_back(
        fmt::format("wanted {:.0f} GiB exceeds the cap: recommend {} GiB, which keeps {} sessions warm",
                    p.wanted_gib, r.gib, fit_sessions));
  } else {
    out.push_back(fmt::format(
        "{} x {:.2f} GiB = {:.1f} GiB, rounded up: --kv-offloading-size {} ({:.1f} GiB pinned per rank)",
        p.sessions, r.session_gib, p.wanted_gib, r.gib, static_cast<double>(r.gib) / r.world_size));
  }
  if (!r.below_floor) return;
  out.push_back(r.gib > p.floor_gib
                    ? fmt::format("raised to {} GiB: vLLM's floor is the {:.1f} GiB GPU KV pool (all ranks), "
                                  "which a smaller write-through tier only mirrors",
                                  r.gib, p.floor_gib)
                    : fmt::format("the cap is below vLLM's floor, the {:.1f} GiB GPU KV pool (all ranks): a "
                                  "tier this small only mirrors the GPU cache",
                                  p.floor_gib));
}

}  // namespace

std::vector<std::string> rule_step_lines(const OffloadPlan& p) {
  if (!p.rule) return {};  // a document written before the rule's figures were recorded
  const auto& r = *p.rule;
  std::vector<std::string> out{cpu_block_text(p)};
  out.push_back(
      fmt::format("one {}-token session = {:.2f} GiB in the CPU tier; sessions to keep warm: {} ({})",
                  format_count(r.session_tokens), r.session_gib, p.sessions,
                  sessions_reason_text(p.sessions, r.sessions_source)));
  out.push_back(cap_line(p));
  size_lines(out, p);
  return out;
}

std::vector<std::string> rule_reasoning_lines(const OffloadPlan& p) {
  auto out = rule_step_lines(p);
  if (p.rule && p.rule->requested_max_model_len) {
    out.insert(
        out.begin(),
        fmt::format("sized for the suggested --max-model-len {} (the requested {} does not fit)",
                    format_count(p.rule->session_tokens), format_count(*p.rule->requested_max_model_len)));
  }
  return out;
}

}  // namespace kvb
