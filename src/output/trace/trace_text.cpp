#include "output/trace/trace_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "fleet/fleet_spec.hpp"
#include "output/common/text_table.hpp"

namespace kvb {
namespace {

std::string lengths(const char* what, const LengthSummary& s) {
  return fmt::format("  {} tokens: mean {:.0f}, p50 {:.0f}, p90 {:.0f}, p99 {:.0f}, max {:.0f}\n", what,
                     s.mean, s.p50, s.p90, s.p99, s.max);
}

// --replicas: how the router split the trace, and the curve with a cache of each size per replica.
std::string fleet_text(const TraceAnalysis& a, double gib_per_block) {
  std::string out = fmt::format(
      "\nAcross {} replicas behind a {} router (routed by what the router sent where; the trace has no "
      "service times)\n",
      a.fleet.replicas, to_string(a.fleet.router));
  TextTable shares({"replica", "requests", "prompt tokens", "unbounded prefix hit rate"});
  for (std::size_t i = 0; i < a.replicas.size(); ++i) {
    const auto& r = a.replicas[i];
    shares.add_row({std::to_string(i), format_count(r.requests),
                    format_count(static_cast<std::int64_t>(r.prompt_tokens)),
                    fmt::format("{:.1f}%", 100 * r.unbounded_prefix_hit_rate)});
  }
  out += shares.render();
  out +=
      "\nPer-replica miss-ratio curve: each replica with a cache of this size (fleet: weighted by prompt "
      "tokens)\n";
  TextTable t({"cache GiB per replica", "blocks", "fleet hit rate", "lowest replica", "highest replica"});
  for (std::size_t k = 0; k < a.fleet_curve.size(); ++k) {
    double lo = 1, hi = 0;
    for (const auto& r : a.replicas) {
      lo = std::min(lo, r.curve[k].prefix_hit_rate);
      hi = std::max(hi, r.curve[k].prefix_hit_rate);
    }
    const auto& p = a.fleet_curve[k];
    t.add_row({fmt::format("{:.2f}", static_cast<double>(p.blocks) * gib_per_block), format_count(p.blocks),
               fmt::format("{:.1f}%", 100 * p.prefix_hit_rate), fmt::format("{:.1f}%", 100 * lo),
               fmt::format("{:.1f}%", 100 * hi)});
  }
  return out + t.render();
}

// A vLLM request log: what was taken as an upper bound, left out, or stamped to the second.
std::string vllm_log_text(const VllmLogFacts& f) {
  std::string out;
  if (f.output_upper_bound > 0) {
    out += fmt::format(
        "  output: {} of the log's {} requests have no logged response (streamed, or no "
        "--enable-log-outputs): "
        "their max_tokens is taken, an upper bound\n",
        format_count(f.output_upper_bound), format_count(f.requests));
  }
  if (f.embeds_left_out > 0) {
    out += fmt::format("  left out: {} prompt{} logged without token ids (given as embeddings)\n",
                       format_count(f.embeds_left_out), f.embeds_left_out == 1 ? "" : "s");
  }
  if (f.whole_seconds) {
    out +=
        "  arrivals to the second: vLLM's own log stamp is no finer (a logging config's %(created).6f gives "
        "microseconds)\n";
  }
  return out;
}

std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

// --secondary-tier-size: the share of prompt tokens each tier serves, per CPU-tier size.
std::string two_level_text(const TwoLevelCurve& c, double gib_per_block) {
  const auto gib = [&](std::int64_t blocks) { return static_cast<double>(blocks) * gib_per_block; };
  const auto& s = c.levels.secondary_blocks;
  std::string out = fmt::format(
      "\nTwo-level miss-ratio curve: a GPU pool of {:.2f} GiB ({} block{}), the CPU tier, and a secondary "
      "tier of {} behind it (vLLM's tiering: written through, a hit promoted through the CPU tier; LRU at "
      "every tier, inclusive; docs/trace.md)\n",
      gib(c.levels.gpu_blocks), format_count(c.levels.gpu_blocks), c.levels.gpu_blocks == 1 ? "" : "s",
      s ? fmt::format("{:.2f} GiB ({} block{})", gib(*s), format_count(*s), *s == 1 ? "" : "s")
        : std::string("unbounded size (every re-reference the CPU tier misses)"));
  if (c.points.empty()) {
    return out +
           "  the GPU pool is at least as large as the curve's largest capacity: no CPU or secondary tier "
           "adds a hit\n";
  }
  TextTable t({"CPU tier GiB", "blocks", "GPU", "CPU tier", "secondary", "all tiers"});
  for (const auto& p : c.points) {
    t.add_row({fmt::format("{:.2f}", gib(p.cpu_blocks)), format_count(p.cpu_blocks), percent(p.gpu),
               percent(p.cpu), percent(p.secondary), percent(p.total())});
  }
  return out + t.render();
}

}  // namespace

std::string trace_text(const TraceAnalysis& a, const TraceKvCost& cost) {
  std::string out = fmt::format("kvbench trace: {} ({})\n", printable_path(a.path), to_string(a.format));
  out += "Counted from the trace (nothing simulated); sizes use the model's KV bytes per token below.\n";
  if (a.interrupted) out += "Interrupted: the figures cover only the requests read before the signal.\n";
  out += "\n";
  out += fmt::format(
      "  requests {}{} over {}: {:.2f} req/s on average, {:.2f} in the median minute, {:.2f} at the "
      "peak minute\n",
      format_count(a.requests),
      a.skipped_by_sample > 0 ? fmt::format(" (--trace-sample {:g} left out {})", a.options.sample,
                                            format_count(a.skipped_by_sample))
                              : std::string(),
      format_seconds(a.duration_s), a.mean_rate, a.median_minute_rate, a.peak_minute_rate);
  if (a.failed_requests > 0) {
    out += fmt::format("  left out: {} request{} the client recorded as failed or incomplete\n",
                       format_count(a.failed_requests), a.failed_requests == 1 ? "" : "s");
  }
  if (a.format == TraceFormat::kVllmLog) out += vllm_log_text(a.vllm_log);
  out += lengths("prompt", a.prompt) + lengths("output", a.output);
  out += "  (percentiles from a log-binned histogram: within 1.1%)\n";
  if (!a.reuse_recorded) {
    out += "\nThis format records no reuse between requests: no prefix hit rate can be counted from it.\n";
    return out;
  }
  const double gib = block_gib(a, cost);
  out += fmt::format(
      "  distinct prefix blocks {} of {} tokens ({} for {} on {} at TP {}: {} B per token, all ranks)\n",
      format_count(a.distinct_blocks), a.options.block_tokens,
      format_bytes_binary(static_cast<double>(a.distinct_blocks) * gib * kGiB), cost.server.model,
      cost.server.hardware, cost.server.tensor_parallel_size,
      format_count(static_cast<std::int64_t>(cost.kv_bytes_per_token)));
  out += fmt::format("  prefix hit rate of an unbounded cache: {:.1f}% of prompt tokens\n\n",
                     100 * a.unbounded_prefix_hit_rate);
  out +=
      "Miss-ratio curve (LRU, prefix semantics: a block counts only when every block before it hit; exact)\n";
  TextTable t({"cache GiB", "blocks", "prefix hit rate"});
  for (const auto& p : a.curve) {
    t.add_row({fmt::format("{:.2f}", static_cast<double>(p.blocks) * gib), format_count(p.blocks),
               fmt::format("{:.1f}%", 100 * p.prefix_hit_rate)});
  }
  out += t.render();
  if (a.two_level) out += two_level_text(*a.two_level, gib);
  if (!a.replicas.empty()) out += fleet_text(a, gib);
  return out;
}

}  // namespace kvb
