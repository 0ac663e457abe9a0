#pragma once
// Human-readable `kvbench size` output: a detailed view of one sizing, or a summary table.
#include <string>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

std::string sizing_text(const Sizing& s);
std::string sizing_summary_table(const std::vector<Sizing>& all);

}  // namespace kvb
