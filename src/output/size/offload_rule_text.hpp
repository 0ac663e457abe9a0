#pragma once
// The sizing rule's steps in words (block, sessions, cap, size, floor), from the plan's figures:
// the text's and the JSON's reasoning for a rule-basis recommendation.
#include <string>
#include <vector>

#include "size/offload_plan.hpp"

namespace kvb {

// "one 16-token CPU block = 2.50 MiB across 1 rank; 6,553 tokens per GiB".
std::string cpu_block_text(const OffloadPlan& p);
// The sizing rule's steps (block, session, cap, size, floor) from the plan's figures; with the
// line that says it was sized for a shorter context first, where it was (the plan's reasoning).
std::vector<std::string> rule_step_lines(const OffloadPlan& p);
std::vector<std::string> rule_reasoning_lines(const OffloadPlan& p);

}  // namespace kvb
