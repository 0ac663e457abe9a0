#pragma once
// The simulator's expected error against real vLLM servers, in words: the figures of the server's
// own scored class, or "not scored for" its class with the classes that were scored; "" where the
// calibration was never scored.
#include <string>

#include "perf/calibration.hpp"

namespace kvb {

std::string server_class_text(bool moe, const std::string& weights, int ranks);  // "dense bf16 on 1 rank"
std::string expected_error_text(const ExpectedError& e);

}  // namespace kvb
