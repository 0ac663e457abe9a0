#include "output/size/secondary_advice_text.hpp"

#include <fmt/format.h>

#include "core/strings.hpp"
#include "core/units.hpp"
#include "output/common/text_table.hpp"
#include "output/size/tier_advice_text.hpp"

namespace kvb {
namespace {

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

std::string gain_text(const SecondaryTierAdvice& a) {
  const auto g = describe_gain(a.gain, a.metric);
  return a.gain_spread > 0 ? fmt::format("{} +/- {:.1f}%", g, a.gain_spread * 100) : g;
}

// The stated size against the CPU tier alone, in both metrics a tier is judged by.
std::string top_change(const SecondaryTierAdvice& a) {
  const auto& top = a.ladder.back();
  return fmt::format("at {:g} GiB TTFT p99 {} -> {}, output {:.0f} -> {:.0f} tok/s", top.gib,
                     format_seconds(a.cpu_ttft_p99_s), format_seconds(top.ttft_p99_s),
                     a.cpu_output_tokens_per_s, top.output_tokens_per_s);
}

std::string simulated_line(const SecondaryTierAdvice& a) {
  std::string sizes;
  for (const auto& p : a.ladder) sizes += (sizes.empty() ? "" : ", ") + fmt::format("{:g}", p.gib);
  return fmt::format(
      "secondary tier (--secondary-tier-size {:g}): the recommended {:g} GiB CPU tier simulated again with "
      "{} GiB behind it (vLLM's tiering: written through from the CPU tier, a hit promoted through it), on "
      "the same draws; disk read {:.3g} GB/s, write {:.3g} GB/s, {:g} us a chunk ({}); the secondary tier "
      "is not scored against a real vLLM server",
      a.stated_gib, a.cpu_gib, sizes.empty() ? "none" : sizes, a.read_gbps, a.write_gbps, a.latency_us,
      a.rates_stated ? "stated, not measured" : "measured by kvbench storage");
}

std::string pays_line(const SecondaryTierAdvice& a) {
  const auto basis =
      a.basis == SecondaryCapacityBasis::kPeakHeld
          ? fmt::format("the most the tier held in any draw at {:g} GiB, rounded up: it never filled that",
                        a.ladder_gib)
          : std::string("the smallest simulated capacity with 95% of the best gain");
  return fmt::format(
      "recommend a secondary tier of {:g} GiB ({}): {} against the {:g} GiB CPU tier alone, {} of prompt "
      "tokens promoted from it",
      a.recommended_gib, basis, gain_text(a), a.cpu_gib, percent(a.hit_rate));
}

std::string why_not(const SecondaryTierAdvice& a) {
  switch (a.verdict) {
    case SecondaryVerdict::kPays:
      return {};
    case SecondaryVerdict::kNoCpuTier:
      return "no CPU tier is recommended for this traffic, and vLLM's tiering cascades from one";
    case SecondaryVerdict::kWorkingSetInCpu:
      if (a.stated_gib <= a.cpu_gib)
        return fmt::format(
            "the {:g} GiB stated is no larger than the {:g} GiB CPU tier in front of it: written "
            "through from the CPU tier, it only mirrors it ({} of prompt tokens came from it)",
            a.stated_gib, a.cpu_gib, percent(a.hit_rate));
      return fmt::format(
          "the {:g} GiB CPU tier already holds the working set: {} of prompt tokens came from "
          "the secondary tier even at {:g} GiB",
          a.cpu_gib, percent(a.hit_rate), a.ladder.back().gib);
    case SecondaryVerdict::kWithinModelError:
      return fmt::format(
          "within the model's error: its best gain, {}, less its spread over the draws is no "
          "more than the simulation's stated {:.1f}% error for this class of server",
          gain_text(a), a.model_error.value_or(0) * 100);
    case SecondaryVerdict::kDiskSlowerThanRecompute:
      return fmt::format(
          "the disk read is slower than recompute: a {}-token prefix takes {} from the disk "
          "and {} to the GPU, against {} to recompute it; {}",
          format_count(a.prefix_tokens), format_seconds(a.disk_read_s), format_seconds(a.reload_s),
          format_seconds(a.recompute_s), top_change(a));
    case SecondaryVerdict::kCosts:
      return fmt::format("it makes the server worse: {}, with {} of prompt tokens from it", top_change(a),
                         percent(a.hit_rate));
    case SecondaryVerdict::kBelowThreshold:
      return fmt::format("its best gain, {}, is below the {:.0f}% that pays", gain_text(a),
                         a.pays_gain * 100);
    case SecondaryVerdict::kInterrupted:
      return "a signal stopped its simulations";
  }
  return {};
}

// size --trace: the trace's own count beside the simulated verdict.
std::string curve_line(const SecondaryTierAdvice& a, const SecondaryCurveShares& c) {
  return fmt::format(
      "the trace's two-level miss-ratio curve (one LRU stack, counted, not simulated; docs/trace.md): "
      "behind the {:g} GiB CPU tier, {:g} GiB would serve {} of prompt tokens beyond the CPU tier's {} "
      "and the GPU pool's {}{}",
      a.cpu_gib, a.stated_gib, percent(c.secondary), percent(c.cpu), percent(c.gpu),
      a.ladder.empty() ? std::string()
                       : fmt::format(" (simulated at {:g} GiB: {} promoted from it)", a.ladder.back().gib,
                                     percent(a.ladder.back().hit_rate)));
}

// The verdict's own lines: what was simulated, whether it pays and why.
std::vector<std::string> verdict_lines(const SecondaryTierAdvice& a) {
  std::vector<std::string> out;
  if (a.verdict != SecondaryVerdict::kNoCpuTier) out.push_back(simulated_line(a));
  if (!a.pays()) {
    out.push_back("no secondary tier: " + why_not(a));
    return out;
  }
  out.push_back(pays_line(a));
  if (!a.model_error)
    out.push_back("its gain cannot be told from the model's error: this class of server was never scored");
  out.push_back(fmt::format(
      "vLLM's file-system tier has no bound of its own before vLLM RFC #54779: its disk use grows with the "
      "traffic's distinct prefixes (the simulated tier held at most {:.1f} GiB at {:g} GiB{})",
      a.ladder.back().peak_gib, a.ladder.back().gib,
      a.replicas > 1 ? fmt::format(", its {} replicas' tiers together", a.replicas) : ""));
  return out;
}

}  // namespace

std::vector<std::string> secondary_advice_lines(const SecondaryTierAdvice& a) {
  auto out = verdict_lines(a);
  if (a.trace_curve) out.push_back(curve_line(a, *a.trace_curve));
  return out;
}

std::string secondary_advice_text(const SecondaryTierAdvice& a) {
  std::string out;
  const auto lines = secondary_advice_lines(a);
  if (!lines.empty()) out += "  " + lines.front() + "\n";
  if (!a.ladder.empty()) {
    TextTable t({"secondary", "out tok/s", "TTFT p99", "secondary hit", "CPU hit", "read", "written",
                 "held at most", "change"});
    t.add_row({"none", fmt::format("{:.0f}", a.cpu_output_tokens_per_s), format_seconds(a.cpu_ttft_p99_s),
               "-", "-", "-", "-", "-", "CPU tier alone"});
    for (const auto& p : a.ladder) {
      const auto g = describe_gain(p.gain, a.metric);
      t.add_row({fmt::format("{:g} GiB", p.gib), fmt::format("{:.0f}", p.output_tokens_per_s),
                 format_seconds(p.ttft_p99_s), percent(p.hit_rate), percent(p.cpu_hit_rate),
                 format_bytes_binary(p.bytes_read), format_bytes_binary(p.bytes_written),
                 format_bytes_binary(p.peak_gib * kGiB),
                 p.gain_spread > 0 ? fmt::format("{} +/- {:.1f}", g, p.gain_spread * 100) : g});
    }
    for (const auto& line : split(t.render(), '\n'))
      if (!line.empty()) out += "    " + line + "\n";
  }
  for (std::size_t i = 1; i < lines.size(); ++i) out += "  " + lines[i] + "\n";
  return out;
}

nlohmann::json secondary_advice_to_json(const SecondaryTierAdvice& a) {
  nlohmann::json ladder = nlohmann::json::array();
  for (const auto& p : a.ladder) {
    ladder.push_back({{"size_gib", p.gib},
                      {"output_tokens_per_s", p.output_tokens_per_s},
                      {"ttft_p99_s", p.ttft_p99_s},
                      {"hit_rate", p.hit_rate},
                      {"cpu_hit_rate", p.cpu_hit_rate},
                      {"gain", p.gain},
                      {"gain_spread", p.gain_spread},
                      {"bytes_written", p.bytes_written},
                      {"bytes_read", p.bytes_read},
                      {"peak_gib", p.peak_gib}});
  }
  nlohmann::json j{{"verdict", to_string(a.verdict)},
                   {"pays", a.pays()},
                   {"recommended_gib", a.recommended_gib},
                   {"capacity_basis", to_string(a.basis)},
                   {"ladder_gib", a.ladder_gib},
                   {"replicas", a.replicas},
                   {"stated_gib", a.stated_gib},
                   {"cpu_tier_gib", a.cpu_gib},
                   {"read_gbps", a.read_gbps},
                   {"write_gbps", a.write_gbps},
                   {"latency_us", a.latency_us},
                   {"rates_stated", a.rates_stated},
                   {"decided_by", to_string(a.metric)},
                   {"pays_gain", a.pays_gain},
                   {"gain", a.gain},
                   {"gain_spread", a.gain_spread},
                   {"model_error", a.model_error ? nlohmann::json(*a.model_error) : nlohmann::json(nullptr)},
                   {"hit_rate", a.hit_rate},
                   {"cpu_output_tokens_per_s", a.cpu_output_tokens_per_s},
                   {"cpu_ttft_p99_s", a.cpu_ttft_p99_s},
                   {"prefix_tokens", a.prefix_tokens},
                   {"disk_read_s", a.disk_read_s},
                   {"reload_s", a.reload_s},
                   {"recompute_s", a.recompute_s},
                   {"ladder", ladder},
                   {"lines", secondary_advice_lines(a)}};
  if (a.trace_curve) {  // size --trace on one engine (a workload or a fleet: no such key)
    j["trace_curve"] = {{"gpu_hit_rate", a.trace_curve->gpu},
                        {"cpu_tier_hit_rate", a.trace_curve->cpu},
                        {"secondary_tier_hit_rate", a.trace_curve->secondary}};
  }
  return j;
}

}  // namespace kvb
