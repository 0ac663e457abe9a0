#pragma once
// Human-readable `kvbench size` output: a detailed view of one sizing, or a summary table.
#include <string>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

std::string sizing_text(const Sizing& s);
// "reloading a 32,768-token request (31.37 ms) is 26.1x faster than recomputing it (819.16 ms)", or
// the other way round: the text's and the JSON's words for the same facts.
std::string reload_verdict_text(const ReloadVsRecompute& r);
// "one 16-token CPU block = 2.50 MiB across 1 rank; 6,553 tokens per GiB".
std::string cpu_block_text(const OffloadPlan& p);
// The sizing rule's steps (block, session, cap, size, floor) from the plan's figures; with the
// line that says it was sized for a shorter context first, where it was (the plan's reasoning).
std::vector<std::string> rule_step_lines(const OffloadPlan& p);
std::vector<std::string> rule_reasoning_lines(const OffloadPlan& p);
std::string sizing_summary_table(const std::vector<Sizing>& all);

}  // namespace kvb
