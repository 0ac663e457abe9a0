#pragma once
// The one wording of a CPU tier recommendation's verdict and reasoning (size/tier_advice_facts.hpp
// holds the facts, size/tier_advice_json writes and reads them): what the size text and the report
// print, for a live run and a read-back document alike.
#include <string>
#include <vector>

#include "size/tier_recommendation.hpp"

namespace kvb {

// "+12.0% output tok/s", "-35.1% TTFT p99", "+8.0% goodput": a gain in the metric's words (TTFT
// p99's gain is the share it falls, so it is printed as a fall).
std::string describe_gain(double gain, TierObjective o);

std::string tier_verdict_text(const TierVerdict& v);
// "workload chat not simulated: the weights do not fit" (also a sizing warning).
std::string not_simulated_text(const NotSimulatedWorkload& w);
// Why the rule keeps `sessions` warm: "--concurrency 8", or the default's reason.
std::string sessions_reason_text(int sessions, const SessionsSource& source);
// The pinning figures per GiB and where they were measured (or which GPU's stand in).
std::string pinning_source_text(const PinningCost& cost);
std::string advice_step_text(const AdviceStep& s);

// The recommendation's words, its facts worded, for a live run and a read-back document alike: its
// verdict ("" without one: a document from before recommendations), its steps (none for the rule,
// whose steps output/size/offload_rule_text words from the plan).
std::string recommendation_why(const TierRecommendation& r);
std::vector<std::string> recommendation_reasoning(const TierRecommendation& r);
std::string recommendation_pin_source(const TierRecommendation& r);  // "": no figures recorded

}  // namespace kvb
