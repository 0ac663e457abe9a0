#pragma once
// Writes the kvbench/size/v1 document (docs/conventions.md) from the sizings (output/size/size_json.hpp's
// reader rebuilds them, and the document byte for byte).
#include <nlohmann/json.hpp>
#include <vector>

#include "output/size/size_json.hpp"
#include "size/sizing.hpp"

namespace kvb {

// A sizing's facts as the document records them (one element of "results").
nlohmann::json sizing_to_json(const Sizing& s);

// One document: {"schema": ..., "tool": ..., "results": [ ... ]}.
nlohmann::json sizings_document(const std::vector<Sizing>& all);
nlohmann::json size_document_json(const SizeDocument& d);

// A result's recommendation, every field (recommendation_from_json reads it back).
nlohmann::json recommendation_to_json(const TierRecommendation& r);

}  // namespace kvb
