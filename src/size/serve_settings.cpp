#include "size/serve_settings.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace kvb {

std::string to_string(Quantization q) { return q == Quantization::kFp8 ? "fp8" : "none"; }

std::string to_string(OffloadingBackend b) { return b == OffloadingBackend::kLmcache ? "lmcache" : "native"; }

Quantization parse_quantization(const std::string& text, const std::string& what) {
  if (text == "none") return Quantization::kNone;
  if (text == "fp8") return Quantization::kFp8;
  throw UsageError(fmt::format("{} '{}' is not supported; expected none or fp8", what, text));
}

OffloadingBackend parse_offloading_backend(const std::string& text, const std::string& what) {
  if (text == "native") return OffloadingBackend::kNative;
  if (text == "lmcache") return OffloadingBackend::kLmcache;
  throw UsageError(fmt::format("{} '{}': expected native or lmcache", what, text));
}

}  // namespace kvb
