#include "output/size/size_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"
#include "output/common/expected_error_text.hpp"
#include "output/common/host_memory_text.hpp"
#include "output/common/link_origin_text.hpp"
#include "output/common/text_table.hpp"
#include "output/common/time_model_text.hpp"
#include "output/size/engine_notes_text.hpp"
#include "output/size/fleet_tier_text.hpp"
#include "output/size/kv_layout_text.hpp"
#include "output/size/offload_rule_text.hpp"
#include "output/size/parallelism_text.hpp"
#include "output/size/secondary_advice_text.hpp"
#include "output/size/secondary_plan_text.hpp"
#include "output/size/sizing_advice_text.hpp"
#include "output/size/sizing_warnings_text.hpp"
#include "output/size/tier_advice_text.hpp"
#include "size/offload_plan.hpp"

namespace kvb {
namespace {

void section(std::string& out, const char* title) { out += fmt::format("\n{}\n", title); }

void list(std::string& out, const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  section(out, title);
  for (const auto& i : items) out += "  - " + i + "\n";
}

// The memory profile's activation peak: the forward pass's, or the sampler's warm-up where that
// is larger (many sequences over a large vocabulary).
std::string profile_peak_line(const Sizing& s) {
  const auto& b = s.budget;
  if (b.sampler.gib <= b.activation_gib) {
    return fmt::format("  - activation peak {:.2f} GiB (max-num-batched-tokens {})\n", b.activation_gib,
                       s.server.max_num_batched_tokens);
  }
  return fmt::format(
      "  - activation peak {:.2f} GiB: the sampler's warm-up, {} requests (max-num-seqs {}) "
      "x {} logits x {} B (the forward pass at max-num-batched-tokens {}: {:.2f} GiB)\n",
      b.sampler.gib, b.sampler.requests, s.server.max_num_seqs, b.sampler.vocab_size,
      b.sampler.bytes_per_logit, s.server.max_num_batched_tokens, b.activation_gib);
}

std::string budget_lines(const Sizing& s) {
  const auto& b = s.budget;
  std::string out;
  if (b.from_kv_cache_memory && b.available_bytes > 0) {
    out +=
        fmt::format("  --kv-cache-memory-bytes gives {} for KV per rank (replaces the budget, as in vLLM)\n",
                    format_bytes_binary(b.available_bytes));
    return out;
  }
  if (b.from_kv_cache_memory) {
    // Nothing is left for the KV cache: say what took the GPU, never a negative budget.
    out += fmt::format(
        "  --kv-cache-memory-bytes cannot be honoured: the rest needs {:.2f} GiB of the GPU's {:.2f} GiB\n",
        b.total_gib - b.available_bytes / kGiB, b.total_gib);
    out += fmt::format("  - weights {:.2f} GiB ({} per-rank share)\n", b.weights_gib, s.server.weight_dtype);
    out += profile_peak_line(s);
    out +=
        fmt::format("  - CUDA graphs {:.2f} GiB, non-torch {:.2f} GiB\n", b.cuda_graph_gib, b.non_torch_gib);
    out += "  = no GPU memory for KV cache: the model does not fit\n";
    return out;
  }
  out += fmt::format("  total {:.2f} GiB x gpu-memory-utilization {:.2f} = {:.2f} GiB\n", b.total_gib,
                     b.utilization, b.total_gib * b.utilization);
  out += fmt::format("  - weights {:.2f} GiB ({} per-rank share)\n", b.weights_gib, s.server.weight_dtype);
  out += profile_peak_line(s);
  out += fmt::format(
      "  - non-torch {:.2f} GiB (CUDA graphs, about {:.2f} GiB, come after the KV cache, in the headroom)\n",
      b.non_torch_gib, b.cuda_graph_gib);
  out += fmt::format("  = {:.2f} GiB for KV cache{}\n", b.available_bytes / kGiB,
                     b.available_bytes <= 0 ? ": the model does not fit" : "");
  out += "  (" + b.model_note + ")\n";
  return out;
}

std::string break_even_cell(const Sizing& s) {
  if (!s.reload) return "-";
  if (!s.reload->break_even_tokens) return "never";
  if (*s.reload->break_even_tokens <= s.layout.block_size) return "always";
  return format_count(*s.reload->break_even_tokens);
}

std::string simulated_tier_lines(const TierRecommendation& r) {
  const bool balanced = r.objective == TierObjective::kBalanced;
  std::string out = fmt::format(
      "  simulated: workload {}, {} requests per point{}, objective {}{} (computed by the simulator "
      "from the stated time and link models, not measured)\n",
      r.workload, format_count(r.requests),
      r.seeds > 1
          ? fmt::format(" x {} draws (figures: their mean; +/-: half the range of their gains)", r.seeds)
          : std::string(),
      r.objective ? to_string(*r.objective) : "-",
      balanced ? fmt::format(" (TTFT p99 -{:.0f}% or output tok/s +{:.0f}%, neither worse by {:.0f}%)",
                             kBalancedTtftGain * 100, kPaysGain * 100, kBalancedMaxLoss * 100)
               : "");
  const auto expected = r.expected ? expected_error_text(*r.expected) : std::string();
  out += fmt::format("  expected error against real vLLM: {}\n",
                     expected.empty() ? "not scored for this calibration" : expected);
  // The change in the deciding metric's own sign (TTFT p99 falls: negative), as the recommendation says it.
  const bool latency = r.decided_by == TierObjective::kTtftP99;
  const std::string gain_header = r.decided_by ? "change (" + to_string(*r.decided_by) + ")" : "change";
  TextTable t({"kv-offloading-size", "out tok/s", "TTFT p50", "TTFT p99", "GPU hit", "CPU hit", "h2d util",
               gain_header, "note"});
  for (const auto& c : r.curve) {
    std::string mark;
    if (c.kv_offloading_size_gib == r.kv_offloading_size_gib && r.pays)
      mark = "<- recommended (" + to_string(r.bound) + ")";
    if (c.kv_offloading_size_gib == 0) mark = "no tier";
    t.add_row({fmt::format("{:g} GiB", c.kv_offloading_size_gib),
               fmt::format("{:.0f}", c.output_tokens_per_s), format_seconds(c.ttft_p50_s),
               format_seconds(c.ttft_p99_s), fmt::format("{:.1f}%", c.gpu_hit_rate * 100),
               fmt::format("{:.1f}%", c.cpu_hit_rate * 100), fmt::format("{:.1f}%", c.h2d_utilization * 100),
               c.gain_spread > 0 ? fmt::format("{:+.1f}% +/- {:.1f}", (latency ? -c.gain : c.gain) * 100,
                                               c.gain_spread * 100)
                                 : fmt::format("{:+.1f}%", (latency ? -c.gain : c.gain) * 100),
               mark});
  }
  for (const auto& line : split(t.render(), '\n')) {
    if (!line.empty()) out += "    " + line + "\n";
  }
  out += fmt::format(
      "  vLLM's floor {:.1f} GiB (the GPU KV pool, all ranks: a smaller tier only mirrors it); host-DRAM "
      "cap {:.0f} GiB\n",
      r.floor_gib, r.cap_gib);
  for (const auto& line : recommendation_reasoning(r)) out += "  " + line + "\n";
  const char* verdict = r.bound == TierBound::kInterrupted ? "stopped"
                        : r.pays                           ? "why"
                        : r.costs                          ? "offloading costs this server"
                                                           : "offloading does not pay for this traffic";
  out += fmt::format("  {}: {}\n", verdict, recommendation_why(r));
  return out;
}

// KV bytes per token per rank, derived line by line, and the block layout.
void kv_section(std::string& out, const Sizing& s) {
  const auto& l = s.layout;
  section(out, "KV cache per token, per rank");
  for (const auto& d : kv_derivation_lines(l)) out += "  " + d + "\n";
  out += fmt::format("  = {} B per token per rank ({}), kv-cache-dtype {}\n",
                     format_count(l.kv_bytes_per_token()),
                     format_bytes_binary(static_cast<double>(l.kv_bytes_per_token())), l.kv_dtype);
  if (l.kv_bytes_per_token_all_layers() != l.kv_bytes_per_token()) {
    out += fmt::format(
        "  ({} B per token counting the sliding-window layers, which stop growing at the window)\n",
        format_count(l.kv_bytes_per_token_all_layers()));
  }
  out +=
      fmt::format("  block size {} ({}); {} KV cache group{} of {} layers; page {} per layer, {} per block\n",
                  l.block_size, block_size_reason_text(l), l.num_groups, l.num_groups == 1 ? "" : "s",
                  l.group_size, format_bytes_binary(static_cast<double>(l.page_bytes)),
                  format_bytes_binary(static_cast<double>(l.block_bytes_all_layers())));
}

// The GPU budget and the KV cache vLLM would log for it.
void gpu_sections(std::string& out, const Sizing& s) {
  const auto& l = s.layout;
  section(out, "GPU budget per rank");
  out += budget_lines(s);

  section(out, "GPU KV cache (what vLLM would log)");
  if (!s.weights_fit) {
    out += "  nothing: weights and overheads exceed the budget\n";
  } else {
    out +=
        fmt::format("  num_gpu_blocks {}  ->  GPU KV cache size: {} tokens{}\n",
                    format_count(s.num_gpu_blocks), format_count(s.gpu_kv_tokens),
                    l.uniform ? ""
                              : fmt::format(" (num_blocks // {} groups x {}: a log figure, not a capacity)",
                                            l.num_groups, l.block_size));
    if (!l.uniform) {
      out += fmt::format("  full-attention context the pool holds: {} tokens\n",
                         format_count(s.gpu_kv_tokens_capacity));
    }
    out += fmt::format("  Maximum concurrency for {} tokens per request: {:.2f}x ({} blocks per request)\n",
                       format_count(s.server.max_model_len), s.max_concurrency,
                       format_count(s.blocks_per_request));
    if (!s.fits) {
      out += fmt::format(
          "  vLLM refuses to start: {:.2f} GiB KV cache is needed, which is larger than the available KV "
          "cache memory ({:.2f} GiB); the estimated maximum model length is {}\n",
          s.kv_gib_needed_per_request, s.kv_gib_available, format_count(s.estimated_max_model_len));
    } else {
      out += fmt::format("  one request of {} tokens needs {:.2f} GiB per rank\n",
                         format_count(s.server.max_model_len), s.kv_gib_needed_per_request);
    }
  }
}

// The CPU tier: the recommendation, how it was reached, its start-up and host memory.
void tier_section(std::string& out, const Sizing& s) {
  if (s.offload) {
    const auto& o = *s.offload;
    section(out,
            s.server.offloading_backend == OffloadingBackend::kLmcache
                ? "CPU tier (LMCache's local CPU backend, --kv-offloading-backend lmcache; LMCache "
                  "counts GiB per rank)"
            : s.server.offloading_backend == OffloadingBackend::kSimple
                ? "CPU tier (vLLM's SimpleCPUOffloadConnector, --kv-offloading-backend simple: each rank "
                  "holds its share, cpu_bytes_to_use_per_rank)"
            : s.server.data_parallel_size > 1
                ? "CPU tier (vLLM native offloading, --kv-offloading-size is GiB across one engine's ranks)"
                : "CPU tier (vLLM native offloading, --kv-offloading-size is GiB across all ranks)");
    if (o.recommendation.simulated()) {
      if (o.rule) out += "  " + cpu_block_text(o) + "\n";
      out += simulated_tier_lines(o.recommendation);
    } else {
      for (const auto& r : rule_reasoning_lines(o)) out += "  " + r + "\n";
    }
    if (o.recommended_gib() == 0) {
      out += "  recommended: no CPU tier (leave --kv-offloading-size out)\n";
    } else {
      out += fmt::format(
          "  recommended --kv-offloading-size {}  ->  num_cpu_blocks {}, {} tokens, {:.1f} GiB pinned per "
          "rank ({} basis)\n",
          o.recommended_gib(), format_count(o.num_cpu_blocks), format_count(o.cpu_tokens),
          o.pinned_gib_per_rank, to_string(o.recommendation.basis));
    }
    if (o.recommended_gib() > 0) {
      const auto& r = o.recommendation;
      out += fmt::format(
          "  start-up: pinning {} GiB takes about {:.0f}-{:.0f} s at every server start ({})\n",
          o.recommended_gib(), r.pin_seconds_low, r.pin_seconds_high, recommendation_pin_source(r));
    }
    if (o.host_memory) {
      for (const auto& line : host_memory_lines(*o.host_memory)) out += "  " + line + "\n";
    }
    for (const auto& line : engine_tier_lines(s)) out += "  " + line + "\n";
    if (o.recommendation.fleet) out += fleet_tier_lines(o.recommendation);
    if (o.recommendation.secondary) out += secondary_advice_text(*o.recommendation.secondary);
    if (o.given_gib) {
      out +=
          fmt::format("  given --kv-offloading-size {:g}  ->  num_cpu_blocks {}, {} tokens\n", *o.given_gib,
                      format_count(o.given_num_cpu_blocks), format_count(o.given_cpu_tokens));
    }
  }
}

// Reloading from the CPU tier against recomputing the prefill.
}  // namespace

std::string reload_verdict_text(const ReloadVsRecompute& r) {
  const double ratio = r.recompute_s / std::max(r.reload_s, 1e-12);
  if (ratio >= 1.0) {
    return fmt::format("reloading a {}-token request ({}) is {:.1f}x faster than recomputing it ({})",
                       format_count(r.tokens), format_seconds(r.reload_s), ratio,
                       format_seconds(r.recompute_s));
  }
  return fmt::format(
      "recomputing a {}-token request ({}) is {:.1f}x faster than reloading it ({}): offloading does not pay "
      "at this length",
      format_count(r.tokens), format_seconds(r.recompute_s), 1.0 / ratio, format_seconds(r.reload_s));
}

namespace {

void reload_section(std::string& out, const Sizing& s) {
  if (s.reload) {
    const auto& r = *s.reload;
    section(out, "Reload from CPU vs recompute the prefill (computed, not measured)");
    out += fmt::format("  reload: {} B/token/rank over {:.0f} GB/s plus {:.1f} us per block copy ({})\n",
                       format_count(s.layout.kv_bytes_per_token()), r.link_gbps, r.per_copy_us,
                       r.link ? reload_link_text(*r.link, r.link_given) : std::string("not recorded"));
    out += fmt::format(
        "  recompute: the prefill alone in {}-token chunks, each one engine step of the simulator's {}\n",
        format_count(r.chunk_tokens),
        r.recompute_terms ? time_model_text(*r.recompute_terms) : std::string("model (not recorded)"));
    out += "  " + reload_verdict_text(r) + "\n";
    if (r.break_even_tokens && *r.break_even_tokens <= s.layout.block_size) {
      out += "  break-even: none needed; reloading is faster at every length\n";
    } else if (r.break_even_tokens) {
      out += fmt::format("  break-even: reloading beats recomputing from {} tokens of context\n",
                         format_count(*r.break_even_tokens));
    } else {
      out += "  break-even: none; recomputing is faster at every length\n";
    }
  }
}

// The stated secondary tier held by the engine's own disk tier (LMCache, SGLang, Dynamo).
void engine_secondary_lines(std::string& out, const Sizing& s) {
  if (!s.secondary || s.secondary->kind == SecondaryTierKind::kTieringFs ||
      s.secondary->kind == SecondaryTierKind::kSimpleDisk)
    return;
  for (const auto& line : secondary_plan_lines(*s.secondary)) out += "  - " + line + "\n";
}

// The command line for the engine asked for (vLLM, SGLang, LMCache, Dynamo), or why there is none.
void command_sections(std::string& out, const Sizing& s) {
  if (s.vllm_command.empty()) {
    section(out, s.engine == EngineKind::kSglang ? "SGLang command" : "vLLM command");
    out += "  none: the weights do not fit this configuration (see Alternatives)\n";
    return;
  }
  if (s.engine == EngineKind::kSglang) {
    section(out, "SGLang command (--engine sglang: the tier size as HiCache's host pool)");
    out += s.engine_command + "\n";
    for (const auto& n : s.engine_notes) out += "  - " + engine_note_text(n) + "\n";
    engine_secondary_lines(out, s);
    return;
  }
  if (s.engine == EngineKind::kDynamo) {
    section(out, "NVIDIA Dynamo command (--engine dynamo: the tier size as KVBM's host cache)");
    out += s.engine_command + "\n";
    for (const auto& n : s.engine_notes) out += "  - " + engine_note_text(n) + "\n";
    engine_secondary_lines(out, s);
    return;
  }
  if (!s.engine_command.empty()) {
    section(out, "vLLM + LMCache command (--engine lmcache)");
    out += s.engine_command + "\n";
    for (const auto& n : s.engine_notes) out += "  - " + engine_note_text(n) + "\n";
    engine_secondary_lines(out, s);
  }
  section(out, "vLLM command");
  out += s.vllm_command + "\n";
  if (s.engine_command.empty()) engine_secondary_lines(out, s);  // --kv-offloading-backend lmcache
  if (s.secondary && s.secondary->kind == SecondaryTierKind::kTieringFs)
    for (const auto& line : secondary_plan_lines(*s.secondary)) out += "  - " + line + "\n";
  if (s.secondary && s.secondary->kind == SecondaryTierKind::kTieringFs && !s.secondary_command.empty()) {
    section(out, "Simple connector's disk backend (the alternative: the disk instead of the CPU tier)");
    out += s.secondary_command + "\n";
    for (const auto& line : simple_alternative_lines(*s.secondary)) out += "  - " + line + "\n";
  }
  if (s.secondary && s.secondary->kind == SecondaryTierKind::kSimpleDisk) {
    section(out, "Simple connector's disk backend (--secondary-tier-size: the disk instead of the CPU tier)");
    if (!s.secondary_command.empty()) out += s.secondary_command + "\n";
    for (const auto& line : secondary_plan_lines(*s.secondary)) out += "  - " + line + "\n";
  }
  if (!s.rocm_docker_command.empty()) {
    section(out, "ROCm (docker)");
    out += s.rocm_docker_command + "\n";
  }
  if (s.offload && !s.vllm_command_legacy.empty()) {
    section(out, s.server.offloading_backend == OffloadingBackend::kSimple
                     ? "Connector form (--kv-transfer-config, bytes per rank)"
                     : "Legacy form (vLLM 0.11.x)");
    out += s.vllm_command_legacy + "\n";
  }
  out += "(" + s.vllm_version_note + ")\n";
}

}  // namespace

std::string sizing_text(const Sizing& s) {
  std::string out;
  // A tier that costs this server is the answer that matters most: it comes first.
  if (s.offload && s.offload->recommendation.costs)
    out += "No CPU tier: " + recommendation_why(s.offload->recommendation) + "\n";
  out += fmt::format("kvbench size: {} on {} x {} ({}), max-model-len {}\n", s.server.model, server_gpus(s),
                     s.server.hardware, parallelism_label(s), format_count(s.server.max_model_len));
  out +=
      "Every figure below is computed from vLLM's KV arithmetic and the stated models; the measured inputs "
      "they use (link, pinning) say where they were measured.\n";

  kv_section(out, s);
  gpu_sections(out, s);
  tier_section(out, s);
  reload_section(out, s);
  std::vector<std::string> warnings;
  for (const auto& w : s.warnings) warnings.push_back(sizing_warning_text(w));
  list(out, "Warnings", warnings);
  list(out, "Alternatives", sizing_alternative_lines(s.alternatives));
  list(out, "Notes", sizing_note_lines(s.notes));
  command_sections(out, s);
  return out;
}

std::string sizing_summary_table(const std::vector<Sizing>& all) {
  TextTable t({"model", "hw", "TP x PP", "weights", "context", "KV B/tok/rank", "KV GiB/rank",
               "GPU KV tokens", "conc@len", "fits", "offload GiB", "break-even"});
  for (const auto& s : all) {
    t.add_row({s.server.model, s.server.hardware, tp_by_pp_label(s.server), s.server.weight_dtype,
               format_count(s.server.max_model_len), format_count(s.layout.kv_bytes_per_token()),
               s.weights_fit ? fmt::format("{:.1f}", s.kv_gib_available) : "-",
               s.weights_fit ? format_count(s.gpu_context_tokens()) : "-",
               s.weights_fit ? fmt::format("{:.2f}x", s.max_concurrency) : "-",
               s.fits ? "yes" : (s.weights_fit ? "no: context" : "no: weights"),
               s.offload ? fmt::format("{:g}", s.offload->recommended_gib()) : "-", break_even_cell(s)});
  }
  return t.render() +
         "context: the max-model-len each row sizes (tokens). conc@len: how many requests of that whole "
         "length the GPU KV cache holds at once (vLLM's \"Maximum concurrency\" line). offload GiB: the "
         "rule's --kv-offloading-size (full-length sessions kept warm, capped by host DRAM; --workload "
         "simulates your traffic instead). break-even: the prompt length from which reloading its KV from "
         "the CPU tier is faster than recomputing the prefill (always: at every length; never: at none).\n";
}

}  // namespace kvb
