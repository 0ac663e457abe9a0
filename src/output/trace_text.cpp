#include "output/trace_text.hpp"

#include <fmt/format.h>

#include "core/path_text.hpp"
#include "core/units.hpp"
#include "output/text_table.hpp"

namespace kvb {
namespace {

std::string lengths(const char* what, const LengthSummary& s) {
  return fmt::format("  {} tokens: mean {:.0f}, p50 {:.0f}, p90 {:.0f}, p99 {:.0f}, max {:.0f}\n", what,
                     s.mean, s.p50, s.p90, s.p99, s.max);
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
      format_bytes_binary(static_cast<double>(a.distinct_blocks) * gib * kGiB), cost.model, cost.hardware,
      cost.tensor_parallel_size, format_count(static_cast<std::int64_t>(cost.kv_bytes_per_token)));
  out += fmt::format("  prefix hit rate of an unbounded cache: {:.1f}% of prompt tokens\n\n",
                     100 * a.unbounded_prefix_hit_rate);
  out +=
      "Miss-ratio curve (LRU, prefix semantics: a block counts only when every block before it hit; exact)\n";
  TextTable t({"cache GiB", "blocks", "prefix hit rate"});
  for (const auto& p : a.curve) {
    t.add_row({fmt::format("{:.2f}", static_cast<double>(p.blocks) * gib), format_count(p.blocks),
               fmt::format("{:.1f}%", 100 * p.prefix_hit_rate)});
  }
  return out + t.render();
}

}  // namespace kvb
