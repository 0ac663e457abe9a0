#pragma once
// The simulator's expected error (perf/calibration.hpp) as a fact in a result document, read back
// whole, so that output/common/expected_error_text words a read-back document as it words a live
// run. A document written before the error was a fact holds its words: they read back as
// ExpectedError::recorded and are written back as the same string.
#include <nlohmann/json.hpp>
#include <string>

#include "perf/calibration.hpp"

namespace kvb {

// {"moe": false, "weights": "bf16", "ranks": 1, "hardware": "h100", "scored": [{"moe": false,
//  "weights": "bf16", "ranks": 1, "runs": 11, "runs_described": "...", "ttft_mean": 0.031, ...}],
//  "fleet": false, "one_in_flight": false, "at_one": [{<server class>, "tpot_error_min": -0.1,
//  "tpot_error_max": 0.05}], "at_one_anywhere": {<the same>}}; an ExpectedError with `recorded`
// set: that string alone.
nlohmann::json expected_error_to_json(const ExpectedError& e);
// What `expected_error_to_json` wrote; a string reads as ExpectedError{.recorded = it}. UsageError
// naming `where` and the field for a missing or mistyped field or a number out of its range.
ExpectedError expected_error_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kvb
