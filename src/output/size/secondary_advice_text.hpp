#pragma once
// The words for size --workload/--trace --secondary-tier-size's verdict (size/secondary_tier_advice.hpp):
// what was simulated, whether the secondary tier pays and why, the capacity and where it comes from;
// for the text and the JSON alike. Its JSON object is written here too (it carries the words).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "size/secondary_tier_advice.hpp"

namespace kvb {

// The verdict's lines: the facts worded, or, for a document read back, the words it holds.
std::vector<std::string> secondary_advice_lines(const SecondaryTierAdvice& a);
// The size text's block: the ladder's table and the lines, indented under the CPU tier.
std::string secondary_advice_text(const SecondaryTierAdvice& a);
// kvbench/size/v1's recommendation.secondary_tier_advice (read back by size/size_json).
nlohmann::json secondary_advice_to_json(const SecondaryTierAdvice& a);

}  // namespace kvb
