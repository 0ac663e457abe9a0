#pragma once
// Writes the kvbench/size/v1 document (docs/conventions.md) from the typed record
// (size/size_json.hpp, whose reader rebuilds it byte for byte).
#include <nlohmann/json.hpp>
#include <vector>

#include "output/size/size_json.hpp"
#include "size/sizing.hpp"

namespace kvb {

// A sizing's facts as the document records them, worded where the document words (the warnings).
SizeRecord size_record(const Sizing& s);
nlohmann::json size_record_json(const SizeRecord& r);
nlohmann::json sizing_to_json(const Sizing& s);  // size_record_json(size_record(s))

// One document: {"schema": ..., "tool": ..., "results": [ ... ]}.
nlohmann::json sizings_document(const std::vector<Sizing>& all);
nlohmann::json size_document_json(const SizeDocument& d);

// A result's recommendation, every field (recommendation_from_json reads it back).
nlohmann::json recommendation_to_json(const TierRecommendation& r);

}  // namespace kvb
