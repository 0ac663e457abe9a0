#pragma once
// `kvbench compare`: match two result sets by identity and give each matched case a verdict from
// its samples (Mann-Whitney U for "is there a difference", Hodges-Lehmann for "how large").
#include <string>
#include <vector>

#include "compare/benchmark_set.hpp"

namespace kvb {

enum class Verdict { kSame, kFaster, kSlower, kInconclusive };
std::string to_string(Verdict v);

struct CompareSettings {
  double min_effect = 0.05;  // relative change that matters
  double alpha = 0.05;       // significance level of the U test; the interval is (1 - alpha)
  std::size_t min_samples = 3;
};

struct CaseComparison {
  std::string key, label, unit;
  std::size_t base_n = 0, head_n = 0;
  double base_median = 0, head_median = 0;
  double change = 0;                       // head vs base, relative (Hodges-Lehmann on log values)
  double change_low = 0, change_high = 0;  // its (1 - alpha) interval
  double p_value = 1;
  Verdict verdict = Verdict::kInconclusive;
  std::string why;  // one line: the rule that decided
};

struct Comparison {
  std::string base_origin, head_origin, kind, base_setting, head_setting;
  CompareSettings settings;
  std::vector<CaseComparison> cases;   // in head's order
  std::vector<std::string> only_base;  // labels with no match in head
  std::vector<std::string> only_head;
  std::vector<std::string> waived;  // matched, but waived in one of them
  std::size_t count(Verdict v) const;
};

// The verdict for one case; bigger samples are better. Exposed for tests.
CaseComparison compare_samples(const std::vector<double>& base, const std::vector<double>& head,
                               const CompareSettings& settings);

// Throws UsageError naming both files when they are of different kinds or share no case.
Comparison compare_sets(const BenchmarkSet& base, const BenchmarkSet& head, const CompareSettings& settings);

}  // namespace kvb
