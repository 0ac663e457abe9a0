#pragma once
// kvbench/observe/v1: the window's readings, the release's metric names and the verdict with its
// evidence, worded by output/observe/observe_words as the text is; and its reader, which `report` uses.
#include <nlohmann/json.hpp>
#include <string>

#include "observe/observe_window.hpp"
#include "output/observe/observe_text.hpp"

namespace kvb {

inline constexpr const char* kObserveSchema = "kvbench/observe/v1";

nlohmann::json observe_json(const ObserveResult& r, const ObserveSources& s);

// A kvbench/observe/v1 document read back whole: observe_json(read.result, read.sources) gives the
// same bytes. Every figure range-checked where read, each counter's delta and rate, the hits and the
// verdict with its evidence checked against the readings; UsageError naming `origin`.
struct ObserveDocument {
  ObserveResult result;
  ObserveSources sources;
};
ObserveDocument observe_document_from_json(const nlohmann::json& doc, const std::string& origin);

}  // namespace kvb
