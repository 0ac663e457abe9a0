#pragma once
// `kvbench size --json`: schema kvbench/size/v1.
#include <nlohmann/json.hpp>
#include <vector>

#include "size/sizing.hpp"

namespace kvb {

inline constexpr const char* kSizeSchema = "kvbench/size/v1";

nlohmann::json sizing_to_json(const Sizing& s);

// One document: {"schema": ..., "tool": ..., "results": [ ... ]}.
nlohmann::json sizings_document(const std::vector<Sizing>& all);

}  // namespace kvb
