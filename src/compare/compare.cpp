#include "compare/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/mann_whitney.hpp"
#include "core/errors.hpp"
#include "dma/statistics.hpp"

namespace kvb {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::kSame:
      return "SAME";
    case Verdict::kFaster:
      return "FASTER";
    case Verdict::kSlower:
      return "SLOWER";
    case Verdict::kInconclusive:
      break;
  }
  return "INCONCLUSIVE";
}

std::size_t Comparison::count(Verdict v) const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [v](const CaseComparison& c) { return c.verdict == v; }));
}

CaseComparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                               const CompareSettings& s) {
  CaseComparison c;
  c.base_n = base.size();
  c.head_n = head.size();
  c.base_median = base.empty() ? 0 : summarize(base).median;
  c.head_median = head.empty() ? 0 : summarize(head).median;
  if (base.size() < s.min_samples || head.size() < s.min_samples) {
    c.verdict = Verdict::kInconclusive;
    c.why = fmt::format("{} and {} samples; at least {} each are needed", base.size(), head.size(),
                        s.min_samples);
    if (!base.empty() && !head.empty()) c.change = c.head_median / c.base_median - 1;
    return c;
  }
  // On log values a shift is a ratio, so the change is relative and symmetric in direction.
  std::vector<double> lb, lh;
  for (const double v : base) lb.push_back(std::log(v));
  for (const double v : head) lh.push_back(std::log(v));
  const auto test = mann_whitney_u(lh, lb);
  const auto shift = hodges_lehmann_shift(lb, lh, 1 - s.alpha);
  c.p_value = test.p_two_sided;
  c.change = std::expm1(shift.shift);
  c.change_low = std::expm1(shift.low);
  c.change_high = std::expm1(shift.high);
  const bool significant = c.p_value < s.alpha;
  const bool large = std::fabs(c.change) >= s.min_effect;
  const bool interval_small = c.change_low > -s.min_effect && c.change_high < s.min_effect;
  if (significant && large) {
    c.verdict = c.change > 0 ? Verdict::kFaster : Verdict::kSlower;
    c.why = fmt::format("p = {:.2g} < {:g} and |{:+.1f}%| >= {:g}%", c.p_value, s.alpha, 100 * c.change,
                        100 * s.min_effect);
  } else if (interval_small) {
    c.verdict = Verdict::kSame;
    c.why = fmt::format("{:.0f}% interval [{:+.1f}%, {:+.1f}%] inside +-{:g}%", 100 * (1 - s.alpha),
                        100 * c.change_low, 100 * c.change_high, 100 * s.min_effect);
  } else {
    c.verdict = Verdict::kInconclusive;
    c.why = significant ? fmt::format(
                              "{:.0f}% interval [{:+.1f}%, {:+.1f}%] reaches +-{:g}% but the estimate "
                              "{:+.1f}% does not",
                              100 * (1 - s.alpha), 100 * c.change_low, 100 * c.change_high,
                              100 * s.min_effect, 100 * c.change)
                        : fmt::format(
                              "p = {:.2g} >= {:g} and the {:.0f}% interval [{:+.1f}%, {:+.1f}%] reaches "
                              "+-{:g}%: too noisy to tell",
                              c.p_value, s.alpha, 100 * (1 - s.alpha), 100 * c.change_low,
                              100 * c.change_high, 100 * s.min_effect);
  }
  return c;
}

Comparison compare_sets(const BenchmarkSet& base, const BenchmarkSet& head, const CompareSettings& settings) {
  if (base.kind != head.kind) {
    throw UsageError(fmt::format("{} is a {} result but {} is a {} result; expected two of the same kind",
                                 base.origin, base.kind, head.origin, head.kind));
  }
  Comparison out;
  out.base_origin = base.origin;
  out.head_origin = head.origin;
  out.kind = base.kind;
  out.base_setting = base.setting;
  out.head_setting = head.setting;
  out.settings = settings;
  std::map<std::string, const BenchmarkEntry*> by_key;
  for (const auto& e : base.entries) by_key[e.key] = &e;
  std::map<std::string, bool> matched;
  for (const auto& h : head.entries) {
    const auto it = by_key.find(h.key);
    if (it == by_key.end()) {
      out.only_head.push_back(h.label);
      continue;
    }
    matched[h.key] = true;
    const auto& b = *it->second;
    if (b.waived || h.waived) {
      out.waived.push_back(h.label);
      continue;
    }
    auto c = compare_samples(b.samples, h.samples, settings);
    c.key = h.key;
    c.label = h.label;
    c.unit = h.unit;
    out.cases.push_back(std::move(c));
  }
  for (const auto& b : base.entries) {
    if (!matched.count(b.key)) out.only_base.push_back(b.label);
  }
  if (out.cases.empty() && out.waived.empty()) {
    throw UsageError(
        fmt::format("{} and {} share no case (base: {}; head: {}); expected results of the same device "
                    "and cases",
                    base.origin, head.origin, base.setting, head.setting));
  }
  return out;
}

}  // namespace kvb
