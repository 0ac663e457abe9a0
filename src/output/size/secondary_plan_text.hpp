#pragma once
// The words for size --secondary-tier-size's plan (size/secondary_tier_plan.hpp): which vLLM
// mechanism holds the stated tier, what its configuration reads, and what it does not bound; for
// the text and the JSON alike.
#include <string>
#include <vector>

#include "size/secondary_tier_plan.hpp"

namespace kvb {

std::vector<std::string> secondary_plan_lines(const SecondaryTierPlan& p);
// A simulated tiering plan's alternative: the Simple connector's disk backend at the same capacity.
std::vector<std::string> simple_alternative_lines(const SecondaryTierPlan& p);

}  // namespace kvb
