#pragma once
// The kvbench/size/v1 result document, typed: the record of one sizing and the reader that
// rebuilds it (report reads through it). Its writer sits beside it (size_json_writer), here in
// output/ because the fields JSON users read as words are worded by the text printer's functions;
// the facts (warnings, notes, verdicts, steps) are written and read by size/'s *_json files. A
// round-trip test (tests/unit/output/test_size_json.cpp) keeps writer and reader in step.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/resolved_server.hpp"
#include "size/sizing.hpp"

namespace kvb {

inline constexpr const char* kSizeSchema = "kvbench/size/v1";
// reload_vs_recompute.model: how its figures were reached.
inline constexpr const char* kReloadModelNote =
    "computed: the simulator's roofline step model over the hardware table (perf/step_time_model), not "
    "measured";

struct SizeDocument {
  std::string tool;             // "kvbench <version>" of the run that wrote it
  bool interrupted = false;     // a signal stopped a tier-size sweep
  std::vector<Sizing> results;  // rebuilt from what the document records
};

// Every figure range-checked where it is read (UsageError naming `origin`); fields that earlier v1
// documents lack read with their defaults. Throws nlohmann::json::exception for a malformed one.
SizeDocument size_document_from_json(const nlohmann::json& doc, const std::string& origin);

// A result's recommendation, every field; the reader range-checks each figure (UsageError naming
// `where`). Public so that a round trip (write, read, write) can be tested byte for byte.
TierRecommendation recommendation_from_json(const nlohmann::json& k, const std::string& where);

}  // namespace kvb
