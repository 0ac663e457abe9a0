#pragma once
// `kvbench compare` printers: a table, Markdown for a pull-request comment, and
// github-action-benchmark's customBiggerIsBetter JSON (the head's medians).
#include <nlohmann/json.hpp>
#include <string>

#include "compare/compare.hpp"

namespace kvb {

std::string compare_table(const Comparison& c);
std::string compare_markdown(const Comparison& c);
nlohmann::json compare_benchmark_action_json(const Comparison& c);

}  // namespace kvb
