#pragma once
// A record's token count, checked the same for every trace format's reader: a whole number from
// `lo` to kMaxTraceTokens, else UsageError "<where>: '<field>' is missing or not a whole number" or
// "<where>: '<field>' is N; expected lo to 100000000 tokens".
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace kvb {

// `v` is null where the record lacks the field.
std::int64_t trace_token_count(const nlohmann::json* v, const char* field, std::int64_t lo,
                               const std::string& where);

// The field `key` of the object `record`.
std::int64_t trace_token_count(const nlohmann::json& record, const char* key, std::int64_t lo,
                               const std::string& where);

}  // namespace kvb
