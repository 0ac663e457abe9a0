#include "output/size/sizing_advice_text.hpp"

#include <fmt/format.h>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "output/size/parallelism_text.hpp"

namespace kvb {
namespace {

std::string label_text(const ConfigurationLabel& c) {
  std::string label = "TP " + std::to_string(c.tp);
  if (c.pp > 1) label += " x PP " + std::to_string(c.pp);
  if (c.fp8) label += " fp8";
  return label;
}

std::string text(const DataParallelAttention& a) {
  return fmt::format(
      "data-parallel attention stores each latent once: `--data-parallel-size {} --enable-expert-parallel` "
      "(TP 1 "
      "per attention rank) gives each rank its own KV pool instead of {} copies of one",
      a.tp, a.tp);
}

std::string text(const TpAtMostKvHeads& a) {
  return fmt::format(
      "keep TP at or below the {} KV heads (--tensor-parallel-size {}) and scale out with "
      "--data-parallel-size, "
      "so no KV head is replicated",
      a.kv_heads, a.kv_heads);
}

std::string text(const Fp8KvHalves& a) {
  return fmt::format("--kv-cache-dtype fp8 halves KV per token ({} -> {} B/rank): about {} GPU tokens",
                     format_count(a.bytes_per_token), format_count(a.bytes_per_token / 2),
                     format_count(a.gpu_tokens));
}

std::string text(const ShorterContextFits& a) {
  return "a shorter context fits: --max-model-len " + std::to_string(a.max_model_len);
}

std::string text(const ConfigurationFits& a) {
  return fmt::format("{} fits: {} GPU blocks ({} tokens), weights {:.1f} GiB per GPU",
                     configuration_flags_text(a.flags), format_count(a.gpu_blocks),
                     format_count(a.gpu_tokens), a.weights_gib);
}

std::string text(const NothingFits& a) { return search_tried_text(a.tried); }

std::string text(const WordedAlternative& a) { return a.text; }  // an older document's, as written

std::string text(const CatalogNote& n) { return n.text; }

std::string text(const SlidingWindowNote& n) {
  return fmt::format(
      "{} of {} layers slide over {} tokens: they hold at most {} blocks per request; the logged 'GPU KV "
      "cache "
      "size' is num_blocks // {} groups x block_size, not a capacity",
      n.sliding_layers, n.layers, n.window, n.blocks, n.groups);
}

std::string text(const Fp8AtLoadNote&) {
  return "--quantization fp8 quantizes the bf16 checkpoint at load time; an FP8 checkpoint, where one is "
         "published, gives the same memory";
}

std::string text(const SearchNote& n) {
  auto out = "configuration search: " + search_tried_text(n.tried);
  if (n.tried.data_parallel) out += "; " + data_parallel_tried_text(*n.tried.data_parallel, n.tried.tokens);
  return out;
}

std::string text(const ContextSuffixNote& n) {
  return fmt::format(
      "--max-model-len '{}' = {} tokens (vLLM reads k/m as x1000/x10^6 and K/M as x1024/x2^20)", n.given,
      format_count(n.tokens));
}

// "1 full-attention, 3 Mamba": the groups of each kind, in vLLM's order.
std::string group_kinds(const TierCoverageNote& n) {
  std::vector<std::string> parts;
  if (n.full_groups > 0) parts.push_back(fmt::format("{} full-attention", n.full_groups));
  if (n.sliding_groups > 0) parts.push_back(fmt::format("{} sliding-window", n.sliding_groups));
  if (n.mamba_groups > 0) parts.push_back(fmt::format("{} Mamba", n.mamba_groups));
  return join(parts, ", ");
}

std::string what_is_offloaded(const TierCoverageNote& n) {
  switch (n.status) {
    case OffloadStatus::kSlidingAsFull:
      return fmt::format(
          "offloads every layer, the sliding-window ones as full attention: {} B per token per rank",
          format_count(n.tier_bytes_per_token));
    case OffloadStatus::kOffloadsPerGroup:
      return fmt::format(
          "stores each of the {} KV cache groups ({}; {} layer slots each) in its own slot per {}-token "
          "block, so "
          "its token capacity counts every group's bytes: {} B per token per rank, of which {} B are the KV "
          "that grows with context{}",
          n.full_groups + n.sliding_groups + n.mamba_groups, group_kinds(n), n.group_layers, n.block_size,
          format_count(n.tier_bytes_per_token), format_count(n.context_bytes_per_token),
          n.needs.empty() ? "" : "; it needs " + n.needs);
    default:
      break;
  }
  if (n.indexer_bytes_per_token > 0) {
    return fmt::format(
        "offloads the MLA latent and the sparse-attention indexer's K cache of every layer: {} B per token "
        "per "
        "rank, {} B of it the indexer's",
        format_count(n.tier_bytes_per_token), format_count(n.indexer_bytes_per_token));
  }
  return fmt::format(
      "offloads the MLA latent of every layer: {} B per token per rank, the same on every TP rank",
      format_count(n.tier_bytes_per_token));
}

std::string text(const TierCoverageNote& n) {
  return fmt::format("CPU tier (vLLM {}'s OffloadingConnector, {} model): {} (source: {})",
                     to_string(n.version), to_string(n.kind), what_is_offloaded(n), n.source);
}

}  // namespace

std::string search_tried_text(const SearchTried& t) {
  std::vector<std::string> failed;
  for (const auto& c : t.too_small) failed.push_back(label_text(c));
  if (t.found) {
    return fmt::format("{}{} fits one request of {} tokens",
                       failed.empty() ? "" : "tried " + join(failed, ", ") + " (too small); ",
                       label_text(t.fits), format_count(t.tokens));
  }
  return fmt::format("tried {}: none holds the weights and one request of {} tokens", join(failed, ", "),
                     format_count(t.tokens));
}

std::string configuration_flags_text(const ConfigurationFlags& f) {
  std::string flags = "--tensor-parallel-size " + std::to_string(f.tp);
  if (f.pp > 1) flags += " --pipeline-parallel-size " + std::to_string(f.pp);
  if (f.fp8) flags += " --quantization fp8";
  return fmt::format("{} ({} GPU{}, {} {} node{})", flags, f.gpus, f.gpus == 1 ? "" : "s",
                     f.nodes == 1 ? "one" : std::to_string(f.nodes), f.hardware, f.nodes == 1 ? "" : "s");
}

std::string sizing_alternative_text(const SizingAlternative& a) {
  return std::visit([](const auto& x) { return text(x); }, a);
}

std::string sizing_note_text(const SizingNote& n) {
  return std::visit([](const auto& x) { return text(x); }, n);
}

std::vector<std::string> sizing_alternative_lines(const std::vector<SizingAlternative>& all) {
  std::vector<std::string> out;
  for (const auto& a : all) out.push_back(sizing_alternative_text(a));
  return out;
}

std::vector<std::string> sizing_note_lines(const std::vector<SizingNote>& all) {
  std::vector<std::string> out;
  for (const auto& n : all) out.push_back(sizing_note_text(n));
  return out;
}

std::string weights_do_not_fit_text(const WeightsDoNotFit& e) {
  std::string out = e.what();
  for (const auto& a : e.alternatives) out += "; " + sizing_alternative_text(a);
  return out;
}

}  // namespace kvb
