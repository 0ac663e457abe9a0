#pragma once
// Doctor's checks in words: the detail an operator acts on and where each threshold comes from,
// from what the check found (doctor/check_findings). The table, the JSON, Prometheus and the
// report all print these words.
#include <string>
#include <vector>

#include "doctor/node_checks.hpp"

namespace kvb {

struct CheckWords {
  std::string detail, source;
};
CheckWords check_words(const CheckResult& c);

// Each check with its detail and source filled from its finding; one read back (no finding) keeps
// the words it was read with.
std::vector<CheckResult> worded_checks(std::vector<CheckResult> checks);

}  // namespace kvb
