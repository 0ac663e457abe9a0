#include "perf/copy_method.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

std::string to_string(Method m) {
  switch (m) {
    case Method::kCe:
      return "ce";
    case Method::kCeBatch:
      return "ce-batch";
    case Method::kKernel:
      return "kernel";
  }
  return "?";
}

Method parse_method(const std::string& s, const std::string& what) {
  if (s == "ce") return Method::kCe;
  if (s == "ce-batch") return Method::kCeBatch;
  if (s == "kernel") return Method::kKernel;
  throw UsageError(fmt::format("{}: '{}' is not a method; expected ce, ce-batch or kernel", what, s));
}

}  // namespace kvb
