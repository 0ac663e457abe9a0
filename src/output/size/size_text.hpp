#pragma once
// Human-readable `kvbench size` output: a detailed view of one sizing, or a summary table.
#include <string>
#include <vector>

#include "output/size/offload_rule_text.hpp"  // the rule's steps, which the sizing text shows
#include "size/sizing.hpp"

namespace kvb {

std::string sizing_text(const Sizing& s);
// "reloading a 32,768-token request (31.37 ms) is 26.1x faster than recomputing it (819.16 ms)", or
// the other way round: the text's and the JSON's words for the same facts.
std::string reload_verdict_text(const ReloadVsRecompute& r);
std::string sizing_summary_table(const std::vector<Sizing>& all);

}  // namespace kvb
