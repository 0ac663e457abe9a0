#include "output/observe/observe_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/units.hpp"
#include "output/observe/observe_words.hpp"

namespace kvb {
namespace {

std::string count_text(double v) { return format_count(static_cast<std::int64_t>(std::llround(v))); }

// A counter's change and rate, or a gauge's value at the second scrape.
std::string value_text(const Reading& r, FigureUnit unit, double seconds) {
  if (!r.counter) {
    if (unit == FigureUnit::Ratio) return fmt::format("{:.3f}", r.after);
    if (unit == FigureUnit::Bytes) return format_bytes_decimal(r.after);
    return count_text(r.after) + " tokens";
  }
  switch (unit) {
    case FigureUnit::Tokens:
      return fmt::format("{} tokens  {} tok/s", count_text(r.delta), count_text(r.per_second));
    case FigureUnit::Bytes:
      return fmt::format("{}  {}/s", format_bytes_decimal(r.delta), format_bytes_decimal(r.per_second));
    case FigureUnit::Seconds:
      return fmt::format("{:.2f} s  ({:.1f}% of the window)", r.delta, 100 * r.delta / seconds);
    case FigureUnit::Count:
      return fmt::format("{}  {:.2f}/s", count_text(r.delta), r.per_second);
    case FigureUnit::Ratio:
      break;
  }
  return fmt::format("{}", r.delta);
}

// The share a hit counter is of its lookups, where both were read; what a gauge is not.
std::string share_text(const ObserveResult& r, Figure f) {
  if (f == Figure::TierInFlightUsage) return "  blocks in transfer, not how full the tier is";
  if (f == Figure::SgHostUsedTokens && r.evidence.occupancy)
    return fmt::format("  {:.1f}% of the pool", 100 * *r.evidence.occupancy);
  Figure whole;
  const char* noun = "of lookups";
  if (f == Figure::PrefixHits)
    whole = Figure::PrefixQueries;
  else if (f == Figure::TierHits)
    whole = Figure::TierQueries;
  else if (f == Figure::LmHitTokens)
    whole = Figure::LmRequestedTokens;
  else if (f == Figure::SgDeviceHits || f == Figure::SgHostHits || f == Figure::SgStorageHits) {
    whole = Figure::SgPromptTokens;
    noun = "of prompt tokens";
  } else {
    return "";
  }
  const auto* w = r.find(whole);
  const auto* part = r.find(f);
  if (w == nullptr || part == nullptr || !(w->delta > 0)) return "";
  return fmt::format("  {:.1f}% {}", 100 * part->delta / w->delta, noun);
}

}  // namespace

std::string reading_text(const ObserveResult& r, const Reading& reading) {
  auto text =
      value_text(reading, figure_words(reading.figure).unit, r.seconds) + share_text(r, reading.figure);
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

std::string observe_text(const ObserveResult& r, const ObserveSources& s, bool explain) {
  std::string out = s.after == s.before ? fmt::format("{} metrics over {:.1f} s ({} scrapes of {})\n",
                                                      engine_name(r.engine), r.seconds, s.scrapes, s.before)
                                        : fmt::format("{} metrics over {:.1f} s ({} -> {})\n",
                                                      engine_name(r.engine), r.seconds, s.before, s.after);
  if (s.interrupted) out += "Interrupted: the window ends at the last scrape finished.\n";
  if (r.engine == ObservedEngine::Vllm) out += fmt::format("Tier metrics: {}\n", naming_text(r.naming));
  out += "\n";
  for (const auto& reading : r.readings) {
    const auto& w = figure_words(reading.figure);
    auto line = fmt::format("  {:<24}{:<30}{}", w.label, value_text(reading, w.unit, r.seconds),
                            share_text(r, reading.figure));
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
    if (explain) out += fmt::format("      {} ({}): {}\n", reading.metric, w.source, w.meaning);
  }
  out += fmt::format("\nVerdict: {}\n", verdict_text(r));
  return out;
}

}  // namespace kvb
