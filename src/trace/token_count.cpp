#include "trace/token_count.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "trace/trace_reader.hpp"

namespace kvb {

std::int64_t trace_token_count(const nlohmann::json* v, const char* field, std::int64_t lo,
                               const std::string& where) {
  if (v == nullptr || !v->is_number_integer())
    throw UsageError(fmt::format("{}: '{}' is missing or not a whole number", where, field));
  const auto n = v->get<std::int64_t>();
  if (n < lo || n > kMaxTraceTokens) {
    throw UsageError(
        fmt::format("{}: '{}' is {}; expected {} to {} tokens", where, field, n, lo, kMaxTraceTokens));
  }
  return n;
}

std::int64_t trace_token_count(const nlohmann::json& record, const char* key, std::int64_t lo,
                               const std::string& where) {
  const auto it = record.find(key);
  return trace_token_count(it == record.end() ? nullptr : &*it, key, lo, where);
}

}  // namespace kvb
