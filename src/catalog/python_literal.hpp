#pragma once
// A Python literal as repr() writes it (what vLLM logs as its "non-default args: {...}"), read
// into JSON: dict -> object, list and tuple -> array, str -> string, int and float -> number,
// True/False -> bool, None -> null. What repr() writes that is not a literal (a dataclass's
// `KVTransferConfig(kv_connector='X', ...)`, an enum's `<Enum.NAME: 'v'>`, a bare name) is kept
// as its text, so one such value never makes the rest unreadable.
#include <nlohmann/json.hpp>
#include <string_view>

namespace kvb {

// Nesting deeper than this is refused (no stack grows with the input).
inline constexpr int kMaxLiteralDepth = 64;

// The literal at the start of `text` (what follows it is ignored); UsageError "<what>: ..." naming
// the byte where it is malformed, cut short or nested too deep.
nlohmann::json parse_python_literal(std::string_view text, std::string_view what);

}  // namespace kvb
