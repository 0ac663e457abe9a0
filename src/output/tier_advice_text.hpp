#pragma once
// The one wording of a CPU tier recommendation's verdict and reasoning (size/tier_advice_facts.hpp
// holds the facts): what the size text, its JSON and the report print.
#include <string>
#include <vector>

#include "size/tier_recommendation.hpp"

namespace kvb {

// "+12.0% output tok/s", "-35.1% TTFT p99", "+8.0% goodput": a gain in the metric's words (TTFT
// p99's gain is the share it falls, so it is printed as a fall).
std::string describe_gain(double gain, TierObjective o);

std::string tier_verdict_text(const TierVerdict& v);
std::string advice_step_text(const AdviceStep& s);

// The recommendation's words: its facts worded, or, where it has none (the rule's, or a document's
// as read back), the words it holds.
std::string recommendation_why(const TierRecommendation& r);
std::vector<std::string> recommendation_reasoning(const TierRecommendation& r);
// "the 8 GiB tier's simulation": what a signal cut short; empty when the sweep ran to its end.
std::string recommendation_interrupted_during(const TierRecommendation& r);

}  // namespace kvb
